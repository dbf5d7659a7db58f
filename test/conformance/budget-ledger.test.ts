import { appendFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FileBudgetLedger } from '../../src/adapters/budget-ledger/file-budget-ledger.js';
import { MemoryBudgetLedger } from '../../src/adapters/budget-ledger/memory-budget-ledger.js';
import { OverlayBudgetLedger } from '../../src/adapters/budget-ledger/overlay-budget-ledger.js';
import { describeBudgetLedgerConformance } from '../../src/testing/conformance/index.js';

describeBudgetLedgerConformance('MemoryBudgetLedger', async () => {
  const ledger = new MemoryBudgetLedger();
  return { ledger, reopen: () => new MemoryBudgetLedger({ journal: ledger.journal }) };
});

async function fileSubject() {
  const root = await mkdtemp(join(tmpdir(), 'ledger-conformance-'));
  const ledger = new FileBudgetLedger({ root });
  return {
    root,
    ledger,
    reopen: () => new FileBudgetLedger({ root }),
    rehearsal: { mockLedger: () => new FileBudgetLedger({ root, backend: 'mock' }), remove: (patternId: string) => new FileBudgetLedger({ root }).removeRehearsal(patternId) },
    // A complete line that is not an entry, as a bad merge or a stray editor save leaves.
    corrupt: async () => {
      await mkdir(dirname(ledger.journalPath), { recursive: true });
      await appendFile(ledger.journalPath, 'garbage that is not JSON\n');
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

describeBudgetLedgerConformance('FileBudgetLedger', fileSubject, { corruptible: true, rehearsals: true });

describeBudgetLedgerConformance(
  'OverlayBudgetLedger (over a file ledger)',
  async () => {
    const file = await fileSubject();
    const ledger = new OverlayBudgetLedger(file.ledger);
    // The overlay's own reservations live in memory: a "restart" shares that memory, as a crash test needs.
    return { ...file, ledger, reopen: () => new OverlayBudgetLedger(file.reopen(), { overlay: new MemoryBudgetLedger({ journal: ledger.overlay.journal }) }) };
  },
  { corruptible: true },
);
