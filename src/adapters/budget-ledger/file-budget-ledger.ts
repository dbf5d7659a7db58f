/**
 * Durable daily spend: an append-only journal `<root>/.loop-runtime/spend.jsonl`
 * (one JSON SpendEntry a line, fsynced before `record` resolves) plus the
 * spend other tools log in loop-run-log.md (lines without our `tick_id`).
 *
 * Both files are chronological, so `spentOn` reads them backwards from the end
 * and stops at the first entry older than the day asked for: cost stays
 * proportional to one day's lines, not to the file's size.
 */
import { mkdir, open } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { BudgetLedger, SpendEntry } from '../../core/ports/index.js';
import { RUN_LOG_MARKER, parseRunLogLine } from '../../core/state/run-log.js';
import { fsyncDirectory } from '../fs/atomic-file.js';

export interface FileBudgetLedgerOptions {
  root: string;
  /** Run log file name (default "loop-run-log.md"). */
  runLog?: string;
  /** Directory for the runtime's own files (default ".loop-runtime"). */
  dir?: string;
}

/** Bytes read by `spentOn`, for benchmarks and tests. */
export interface LedgerReadStats {
  bytesRead: number;
}

/**
 * @example
 * ```ts
 * const ledger = new FileBudgetLedger({ root: '/repo' });
 * await ledger.record({ at, day: '2026-09-15', patternId: 'ci-sweeper', tickId, phase: 'triage', tokens: 1200, costUsd: null });
 * await ledger.spentOn('2026-09-15', 'ci-sweeper'); // 1200 + today's untagged run-log spend
 * ```
 */
export class FileBudgetLedger implements BudgetLedger {
  readonly specificationVersion = 'budget-ledger-v1' as const;
  readonly journalPath: string;
  readonly runLogPath: string;
  readonly stats: LedgerReadStats = { bytesRead: 0 };

  constructor(options: FileBudgetLedgerOptions) {
    this.journalPath = resolve(options.root, options.dir ?? '.loop-runtime', 'spend.jsonl');
    this.runLogPath = resolve(options.root, options.runLog ?? 'loop-run-log.md');
  }

  /** Appends one entry and fsyncs it; durable when the promise resolves. */
  async record(entry: SpendEntry): Promise<void> {
    await mkdir(dirname(this.journalPath), { recursive: true });
    const created = await open(this.journalPath, 'a+').then(async (handle) => {
      try {
        const { size } = await handle.stat();
        // A crash mid-append leaves a torn last line; start ours on a fresh line.
        let prefix = '';
        if (size > 0) {
          const last = Buffer.alloc(1);
          await handle.read(last, 0, 1, size - 1);
          if (last[0] !== 0x0a) prefix = '\n';
        }
        await handle.appendFile(`${prefix}${JSON.stringify(toJournalLine(entry))}\n`, 'utf8');
        await handle.sync();
        return size === 0;
      } finally {
        await handle.close();
      }
    });
    if (created) await fsyncDirectory(dirname(this.journalPath));
  }

  /** Tokens spent on `day` (UTC, YYYY-MM-DD) by `patternId`. */
  async spentOn(day: string, patternId: string): Promise<number> {
    let total = 0;
    await readLinesBackward(
      this.journalPath,
      (line) => {
        const entry = parseJournalLine(line);
        if (!entry) return 'continue';
        if (entry.day < day) return 'stop';
        if (entry.day === day && entry.patternId === patternId) total += entry.tokens;
        return 'continue';
      },
      this.stats,
    );
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
}

function toJournalLine(entry: SpendEntry): SpendEntry {
  return {
    at: entry.at,
    day: entry.day,
    patternId: entry.patternId,
    tickId: entry.tickId,
    phase: entry.phase,
    tokens: entry.tokens,
    costUsd: entry.costUsd,
  };
}

function parseJournalLine(line: string): { day: string; patternId: string; tokens: number } | null {
  if (!line.startsWith('{')) return null;
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (typeof value.day !== 'string' || typeof value.patternId !== 'string' || typeof value.tokens !== 'number') return null;
    return { day: value.day, patternId: value.patternId, tokens: value.tokens };
  } catch {
    return null;
  }
}

/**
 * Visits the complete lines of a file from last to first, reading chunks from
 * the end, until `visit` returns "stop". A last line without a terminating
 * newline (a torn append) is skipped. A missing file has no lines.
 */
export async function readLinesBackward(
  path: string,
  visit: (line: string) => 'continue' | 'stop',
  stats: LedgerReadStats = { bytesRead: 0 },
  chunkSize = 64 * 1024,
): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    let position = (await handle.stat()).size;
    // Bytes of the line being assembled; everything after the last newline seen so far.
    let carry: Buffer = Buffer.alloc(0);
    let sawTerminator = false;
    while (position > 0) {
      const length = Math.min(chunkSize, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      await handle.read(chunk, 0, length, position);
      stats.bytesRead += length;
      const buffer = Buffer.concat([chunk, carry]);
      let end = buffer.length;
      for (let index = buffer.length - 1 - carry.length; index >= 0; index -= 1) {
        if (buffer[index] !== 0x0a) continue;
        if (sawTerminator) {
          const line = buffer.subarray(index + 1, end).toString('utf8').replace(/\r$/, '');
          if (visit(line) === 'stop') return;
        }
        sawTerminator = true;
        end = index;
      }
      carry = buffer.subarray(0, end);
    }
    if (sawTerminator && carry.length > 0) visit(carry.toString('utf8').replace(/\r$/, ''));
  } finally {
    await handle.close();
  }
}
