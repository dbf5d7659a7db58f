import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileAttemptLedger } from '../../src/adapters/attempt-ledger/file-attempt-ledger.js';
import { MemoryAttemptLedger } from '../../src/adapters/attempt-ledger/memory-attempt-ledger.js';
import { describeAttemptLedgerConformance } from '../../src/testing/conformance/index.js';

describeAttemptLedgerConformance('MemoryAttemptLedger', async () => {
  const ledger = new MemoryAttemptLedger();
  return { ledger, second: () => ledger };
});

describeAttemptLedgerConformance('FileAttemptLedger', async () => {
  const root = await mkdtemp(join(tmpdir(), 'attempt-ledger-conformance-'));
  const open = () => new FileAttemptLedger({ root, patternId: 'ci-sweeper' });
  return {
    ledger: open(),
    second: open,
    reopen: open,
    corrupt: () => writeFile(join(root, 'loop-ledger.json'), '{"goal": "g", "attempts": [{"iteration": 1,'),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});
