/**
 * Durable daily spend: an append-only journal `<root>/.loop-runtime/spend.jsonl`
 * of open reservations, their settles and reconciles, and plain spend (format
 * in `journal-line.ts`), plus the spend other tools log in loop-run-log.md
 * (lines without our `tick_id`).
 *
 * Every append runs under an inter-process lock (`spend.jsonl.lock`) and is
 * fsynced before its promise resolves, so two processes never lose each
 * other's entries and an open reservation is on disk before the backend runs.
 * The journal is chronological, so reads go backwards from the end and stop
 * before the day asked for: cost stays proportional to one day's lines.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { BudgetLedger, CloseResult, OpenReservation, ReconcileRequest, ReservationRequest, SettleUsage, SpendEntry } from '../../core/ports/index.js';
import { decideClose, isBeforeDay, JournalTally, ReservationLookup, type JournalEntry } from '../../core/budget/budget-journal.js';
import { LoopRuntimeError } from '../../core/errors.js';
import { RUN_LOG_MARKER, parseRunLogLine } from '../../core/state/run-log.js';
import { fsyncDirectory, readTextOrNull, withFileLock, writeTextAtomically } from '../fs/atomic-file.js';
import { formatJournalLine, parseJournalLine } from './journal-line.js';
import { readLinesBackward, type LedgerReadStats } from './read-lines-backward.js';
import { withoutRehearsalSpend } from './rehearsal-spend.js';

export { readLinesBackward, type LedgerReadStats } from './read-lines-backward.js';

export interface FileBudgetLedgerOptions {
  root: string;
  /** Run log file name (default "loop-run-log.md"). */
  runLog?: string;
  /** Directory for the runtime's own files (default ".loop-runtime"). */
  dir?: string;
  /**
   * The backend this ledger journals for, written on every line it opens or
   * records (settles and reconciles repeat their reservation's). Spend tagged
   * `"mock"` is rehearsal spend: it is left out of `spentOn` for any other
   * backend, so mock tokens never count against a real loop's cap, and
   * `reset --mock` can remove it. A mock ledger counts everything.
   */
  backend?: string;
}

/** The backend name whose journal lines are rehearsal spend. */
export const MOCK_BACKEND = 'mock';

/**
 * @example
 * ```ts
 * const ledger = new FileBudgetLedger({ root: '/repo' });
 * const held = await ledger.open({ at, day: '2026-09-15', patternId: 'ci-sweeper', tickId, phase: 'triage', tokens: 10_000 });
 * await ledger.spentOn('2026-09-15', 'ci-sweeper'); // 10,000 (+ today's untagged run-log spend) until settled
 * await ledger.settle(held.id, { at, tokens: 1200, costUsd: null }); // now 1,200
 * ```
 */
export class FileBudgetLedger implements BudgetLedger {
  readonly specificationVersion = 'budget-ledger-v2' as const;
  readonly journalPath: string;
  readonly runLogPath: string;
  readonly stats: LedgerReadStats = { bytesRead: 0 };
  private readonly backend: string | undefined;

  constructor(options: FileBudgetLedgerOptions) {
    this.backend = options.backend;
    this.journalPath = resolve(options.root, options.dir ?? '.loop-runtime', 'spend.jsonl');
    this.runLogPath = resolve(options.root, options.runLog ?? 'loop-run-log.md');
  }

  /** Journals the reservation and fsyncs it; durable when the promise resolves. */
  async open(request: ReservationRequest): Promise<OpenReservation> {
    // node:crypto loads ~17 internal modules; `status` reads this ledger and never reserves.
    const { randomBytes } = await import('node:crypto');
    const reservation: OpenReservation = {
      id: `r-${randomBytes(8).toString('hex')}`,
      at: request.at,
      day: request.day,
      patternId: request.patternId,
      tickId: request.tickId,
      phase: request.phase,
      tokens: Math.max(0, Math.ceil(request.tokens)),
    };
    await this.locked(() => this.append({ kind: 'open', ...reservation }, this.backend));
    return reservation;
  }

  async settle(reservationId: string, usage: SettleUsage): Promise<CloseResult> {
    return this.close(reservationId, { kind: 'settle', usage });
  }

  async reconcile(reservationId: string, request: ReconcileRequest): Promise<CloseResult> {
    return this.close(reservationId, { kind: 'reconcile', request });
  }

  async openReservations(query: { day: string; patternId?: string }): Promise<OpenReservation[]> {
    const tally = new JournalTally(query.day, query.patternId);
    await this.scan((entry) => (isBeforeDay(entry, query.day) ? 'stop' : (tally.visit(entry), 'continue')));
    return tally.openReservations();
  }

  /** Tokens spent on `day` (UTC, YYYY-MM-DD) by `patternId`, open reservations at their full amount. */
  async spentOn(day: string, patternId: string): Promise<number> {
    const tally = new JournalTally(day, patternId);
    const counts = (backend: string | undefined) => this.backend === MOCK_BACKEND || backend !== MOCK_BACKEND;
    await this.scan((entry, backend) => (isBeforeDay(entry, day) ? 'stop' : (counts(backend) && tally.visit(entry), 'continue')));
    let total = tally.spent();
    await readLinesBackward(
      this.runLogPath,
      (line) => {
        if (line.trim() === RUN_LOG_MARKER) return 'stop';
        const entry = parseRunLogLine(line);
        if (!entry) return 'continue';
        const entryDay = entry.run_id.slice(0, 10);
        if (entryDay < day) return 'stop';
        if (entryDay === day && entry.pattern === patternId && entry.tick_id === undefined) {
          total += entry.tokens_estimate ?? 0;
        }
        return 'continue';
      },
      this.stats,
    );
    return total;
  }

  /**
   * `spentOn(day, id)` for several loops in one pass over the journal and the run log (the console's
   * loop table reads every loop at once). Same rules, same numbers.
   */
  async spentByLoopOn(day: string, patternIds: readonly string[]): Promise<Map<string, number>> {
    const tallies = new Map(patternIds.map((id) => [id, new JournalTally(day, id)] as const));
    // The backend rule of `spentOn`: a rehearsal's spend counts only for the mock's own ledger.
    const counts = (backend: string | undefined) => this.backend === MOCK_BACKEND || backend !== MOCK_BACKEND;
    await this.scan((entry, backend) => (isBeforeDay(entry, day) ? 'stop' : (counts(backend) && tallies.get(entry.patternId)?.visit(entry), 'continue')));
    const totals = new Map([...tallies].map(([id, tally]) => [id, tally.spent()] as const));
    await readLinesBackward(
      this.runLogPath,
      (line) => {
        if (line.trim() === RUN_LOG_MARKER) return 'stop';
        const entry = parseRunLogLine(line);
        if (!entry) return 'continue';
        const entryDay = entry.run_id.slice(0, 10);
        if (entryDay < day) return 'stop';
        if (entryDay === day && entry.pattern !== undefined && totals.has(entry.pattern) && entry.tick_id === undefined) {
          totals.set(entry.pattern, totals.get(entry.pattern)! + (entry.tokens_estimate ?? 0));
        }
        return 'continue';
      },
      this.stats,
    );
    return totals;
  }

  /** Appends spend that had no reservation (a v1 line); durable when the promise resolves. */
  async record(entry: SpendEntry): Promise<void> {
    await this.locked(() => this.append({ kind: 'spend', ...entry }, this.backend));
  }

  /**
   * Removes one loop's rehearsal spend (every line the mock backend journalled for it), for `reset <id> --mock`.
   * Returns how many lines went; an absent journal has none.
   */
  async removeRehearsal(patternId: string): Promise<number> {
    if ((await readTextOrNull(this.journalPath)) === null) return 0;
    return this.locked(async () => {
      const old = await readTextOrNull(this.journalPath);
      if (old === null) return 0;
      const { text, removed } = withoutRehearsalSpend(old, patternId);
      if (removed > 0) await writeTextAtomically(this.journalPath, text);
      return removed;
    });
  }

  private async close(reservationId: string, close: Parameters<typeof decideClose>[1]): Promise<CloseResult> {
    return this.locked(async () => {
      const lookup = new ReservationLookup(reservationId);
      // A close repeats its reservation's backend tag, whoever closes it.
      let backend: string | undefined;
      await this.scan((entry, tag) => {
        if (entry.kind === 'open' && entry.id === reservationId) backend = tag;
        return lookup.visit(entry);
      });
      const decided = decideClose(lookup, close);
      if (decided.entry) await this.append(decided.entry, backend);
      return decided.result;
    });
  }

  private async locked<T>(action: () => Promise<T>): Promise<T> {
    await this.io('create the directory of', () => mkdir(dirname(this.journalPath), { recursive: true }));
    return withFileLock(this.journalPath, action);
  }

  /** Appends one line and fsyncs it. Call only under the lock. */
  private async append(entry: JournalEntry, backend: string | undefined): Promise<void> {
    const created = await this.io('append to', async () => {
      const handle = await open(this.journalPath, 'a+');
      try {
        const { size } = await handle.stat();
        // A crash mid-append leaves a torn last line; start ours on a fresh line.
        let prefix = '';
        if (size > 0) {
          const last = Buffer.alloc(1);
          await handle.read(last, 0, 1, size - 1);
          if (last[0] !== 0x0a) prefix = '\n';
        }
        await handle.appendFile(`${prefix}${formatJournalLine(entry, backend)}\n`, 'utf8');
        await handle.sync();
        return size === 0;
      } finally {
        await handle.close();
      }
    });
    if (created) await fsyncDirectory(dirname(this.journalPath));
  }

  /** Visits journal entries newest first; a line that is not an entry is an error, never skipped. */
  private async scan(visit: (entry: JournalEntry, backend: string | undefined) => 'continue' | 'stop'): Promise<void> {
    const found: { corrupt: { offset: number; problem: string; line: string } | null } = { corrupt: null };
    try {
      await readLinesBackward(
        this.journalPath,
        (line, offset) => {
          const parsed = parseJournalLine(line);
          if (parsed.kind === 'skip') return 'continue';
          if (parsed.kind === 'corrupt') {
            found.corrupt = { offset, problem: parsed.problem, line };
            return 'stop';
          }
          return visit(parsed.entry, parsed.backend);
        },
        this.stats,
      );
    } catch (error) {
      throw new LoopRuntimeError('BUDGET_LEDGER_UNREADABLE', `Could not read the spend journal ${this.journalPath}: ${(error as Error).message}.`, {
        cause: error,
        fix: `make ${this.journalPath} a readable file (the loop does not run while today's spend is unknown).`,
      });
    }
    if (found.corrupt) throw await this.corruptError(found.corrupt);
  }

  private async corruptError(corrupt: { offset: number; problem: string; line: string }): Promise<LoopRuntimeError> {
    const head = await readFile(this.journalPath).then((bytes) => bytes.subarray(0, corrupt.offset), () => Buffer.alloc(0));
    const lineNumber = head.filter((byte) => byte === 0x0a).length + 1;
    const excerpt = corrupt.line.length > 80 ? `${corrupt.line.slice(0, 80)}…` : corrupt.line;
    return new LoopRuntimeError(
      'BUDGET_LEDGER_UNREADABLE',
      `The spend journal ${this.journalPath}:${lineNumber} is corrupt: ${corrupt.problem} (${JSON.stringify(excerpt)}). ` +
        'Spend that cannot be read is not counted as zero, so the loop does not run.',
      {
        fix: `repair or delete line ${lineNumber} of ${this.journalPath} (restore it from the state branch or a backup if you have one; deleting it forgets that spend).`,
        detail: { path: this.journalPath, line: lineNumber },
      },
    );
  }

  private async io<T>(what: string, action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      throw new LoopRuntimeError('STATE_FAILED', `Could not ${what} the spend journal ${this.journalPath}: ${(error as Error).message}.`, {
        cause: error,
        retryable: true,
        fix: `check that ${dirname(this.journalPath)} is writable and the disk is not full.`,
      });
    }
  }
}
