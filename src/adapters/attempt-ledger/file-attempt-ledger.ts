/**
 * Attempt history in loop-ledger.json, the loop-context circuit-breaker format:
 * `{goal, pattern, level, attempts: [{iteration, action, outcome, error?, tokensUsed?}]}`.
 * We add `pattern`, `item`, `tick` and `at` to each attempt and keep every key
 * already in the file, ours or not, so `loop-context --check --ledger
 * loop-ledger.json` keeps working on the same file. Every loop of a
 * repository shares the file; each attempt names its loop.
 *
 * Fail-closed: a file that cannot be read, is not JSON or does not match the
 * schema is a `STATE_FAILED` LoopRuntimeError naming the file and the fix —
 * never an empty history (that would close every open circuit).
 */
import { resolve } from 'node:path';
import * as z from 'zod';
import { formatDiagnostic } from '../../core/config/diagnostics.js';
import type { AttemptLedger, AttemptRecord } from '../../core/ports/index.js';
import { isLoopRuntimeError, LoopRuntimeError } from '../../core/errors.js';
import { readTextOrNull, updateFileAtomically } from '../fs/atomic-file.js';

export interface FileAttemptLedgerOptions {
  root: string;
  /** Ledger file name (default "loop-ledger.json"). */
  file?: string;
  /**
   * Names the goal of a file this ledger creates. The file's top-level
   * `pattern` and `level` are never written: they are loop-context's
   * configuration (the level source and a detection signal), and a tick —
   * or a one-off `--level` flag — must not enrol a loop or raise its level.
   */
  patternId?: string;
  goal?: string;
  /** The `action` text of a new attempt (default "attempt <item>"). */
  describeAction?: (record: AttemptRecord) => string;
  /**
   * Applied to each attempt's error text before it is written (secret values,
   * token shapes); errors quote verification commands and agent messages.
   */
  redact?: (text: string) => string;
  /** The backend whose attempts this ledger appends, written as `backend` on each (`"mock"` marks rehearsals). */
  backend?: string;
}

/** Our keys on an attempt. Lenient about keys other tools add; strict about the types of ours. */
const OurAttemptKeys = z.looseObject({
  iteration: z.number(),
  outcome: z.enum(['success', 'failure', 'noop']),
  error: z.string().optional(),
  tokensUsed: z.number().nonnegative().optional(),
  pattern: z.string().min(1).optional(),
  item: z.string().optional(),
  tick: z.string().optional(),
  at: z.union([z.string(), z.number()]).optional(),
});
type LedgerAttempt = z.infer<typeof OurAttemptKeys>;

interface LedgerFile {
  goal: string;
  attempts: LedgerAttempt[];
  [key: string]: unknown;
}

const LEDGER_SHAPE = '{"goal": "...", "attempts": [{"iteration": 1, "action": "...", "outcome": "success|failure|noop"}]}';

/**
 * @example
 * ```ts
 * const attempts = new FileAttemptLedger({ root: '/repo', patternId: 'ci-sweeper' });
 * await attempts.append({ patternId: 'ci-sweeper', itemKey: 'ci:build', tickId: 't1', at: clock.now(), outcome: 'failure', error: 'tests failed', tokensUsed: 900 });
 * ```
 */
export class FileAttemptLedger implements AttemptLedger {
  readonly specificationVersion = 'attempt-ledger-v2' as const;
  readonly path: string;
  private readonly options: FileAttemptLedgerOptions;

  constructor(options: FileAttemptLedgerOptions) {
    this.options = options;
    this.path = resolve(options.root, options.file ?? 'loop-ledger.json');
  }

  /**
   * Every attempt of every loop, in file order. Attempts other tools wrote
   * (no `item`) have itemKey ""; attempts with no `pattern` have patternId null.
   */
  async history(): Promise<readonly AttemptRecord[]> {
    const text = await this.read();
    if (text === null) return [];
    return (await this.parse(text)).attempts.map(toAttemptRecord);
  }

  /** Adds one attempt (next iteration number) with an atomic rewrite under an inter-process lock. */
  async append(record: AttemptRecord): Promise<void> {
    try {
      await updateFileAtomically(this.path, async (old) => {
        const ledger = old === null ? this.fresh() : await this.parse(old);
        const iteration = ledger.attempts.reduce((max, attempt) => Math.max(max, attempt.iteration), 0) + 1;
        ledger.attempts.push({
          iteration,
          action: this.options.describeAction?.(record) ?? `attempt ${record.itemKey}`,
          outcome: record.outcome,
          ...(record.error === undefined ? {} : { error: this.options.redact ? this.options.redact(record.error) : record.error }),
          tokensUsed: record.tokensUsed,
          ...(record.patternId === null ? {} : { pattern: record.patternId }),
          item: record.itemKey,
          tick: record.tickId,
          at: new Date(record.at).toISOString(),
          ...(this.options.backend === undefined ? {} : { backend: this.options.backend }),
        });
        return `${JSON.stringify(ledger, null, 2)}\n`;
      });
    } catch (error) {
      throw isLoopRuntimeError(error) ? error : this.unusable('could not be written', error);
    }
  }

  private async read(): Promise<string | null> {
    try {
      return await readTextOrNull(this.path);
    } catch (error) {
      throw this.unusable('could not be read', error);
    }
  }

  private unusable(what: string, cause: unknown): LoopRuntimeError {
    return new LoopRuntimeError('STATE_FAILED', `The attempt ledger ${this.path} ${what}: ${cause instanceof Error ? cause.message : String(cause)}.`, {
      cause,
      fix: `make ${this.path} a readable, writable file (check its permissions and that it is not a directory).`,
    });
  }

  private fresh(): LedgerFile {
    const pattern = this.options.patternId;
    return { goal: this.options.goal ?? (pattern ? `Run the ${pattern} loop to completion` : 'Run the loop to completion'), attempts: [] };
  }

  private async parse(text: string): Promise<LedgerFile> {
    // The YAML-with-positions loader is imported only when there is a ledger to read (a dry run usually has none).
    const { loadLedger } = await import('../../core/config/load-ledger.js');
    const loaded = loadLedger(text, this.path);
    if (!loaded.ok) {
      throw new LoopRuntimeError('STATE_FAILED', `The attempt ledger is unusable: ${loaded.issues.map(formatDiagnostic).join(' ')}`, {
        fix: `repair ${this.path} or move it aside (the circuit breaker then starts from no history); it must look like ${LEDGER_SHAPE}.`,
        detail: loaded.issues,
      });
    }
    // Validated above; parsed again so the rewrite keeps every key in the order the file had it.
    const raw = JSON.parse(text) as { goal?: unknown; attempts?: LedgerAttempt[] };
    const attempts = raw.attempts ?? [];
    for (const [index, attempt] of attempts.entries()) {
      const checked = OurAttemptKeys.safeParse(attempt);
      if (!checked.success) {
        const where = checked.error.issues.map((issue) => `attempts[${index}].${issue.path.join('.')}: ${issue.message}`).join('; ');
        throw new LoopRuntimeError('STATE_FAILED', `The attempt ledger ${this.path} has an invalid attempt: ${where}.`, {
          fix: `repair that attempt in ${this.path} (pattern, item, tick: strings; tokensUsed: a number ≥ 0; at: an ISO date) or move the file aside.`,
        });
      }
    }
    // loop-context requires `goal`; add it (and nothing else) when another tool left it out.
    return { ...raw, goal: typeof raw.goal === 'string' ? raw.goal : this.fresh().goal, attempts };
  }
}

function toAttemptRecord(attempt: LedgerAttempt): AttemptRecord {
  const at = typeof attempt.at === 'number' ? attempt.at : typeof attempt.at === 'string' ? Date.parse(attempt.at) : Number.NaN;
  return {
    patternId: attempt.pattern ?? null,
    itemKey: attempt.item ?? '',
    tickId: attempt.tick ?? '',
    at: Number.isNaN(at) ? 0 : at,
    outcome: attempt.outcome,
    ...(attempt.error === undefined ? {} : { error: attempt.error }),
    tokensUsed: attempt.tokensUsed ?? 0,
  };
}
