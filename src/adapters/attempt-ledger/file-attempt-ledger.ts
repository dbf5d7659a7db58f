/**
 * Attempt history in loop-ledger.json, the loop-context circuit-breaker format:
 * `{goal, pattern, level, attempts: [{iteration, action, outcome, error?, tokensUsed?}]}`.
 * We add `item`, `tick` and `at` to each attempt and keep every key already in
 * the file, ours or not, so `loop-context --check --ledger loop-ledger.json`
 * keeps working on the same file.
 */
import { resolve } from 'node:path';
import type { AttemptLedger, AttemptRecord } from '../../core/ports/index.js';
import { LoopRuntimeError } from '../../core/errors.js';
import { readTextOrNull, updateFileAtomically } from '../fs/atomic-file.js';

export interface FileAttemptLedgerOptions {
  root: string;
  /** Ledger file name (default "loop-ledger.json"). */
  file?: string;
  /** Written only when the file is created; an existing file keeps its own. */
  patternId?: string;
  level?: string;
  goal?: string;
  /** The `action` text of a new attempt (default "attempt <item>"). */
  describeAction?: (record: AttemptRecord) => string;
  /**
   * Applied to each attempt's error text before it is written (secret values,
   * token shapes); errors quote verification commands and agent messages.
   */
  redact?: (text: string) => string;
}

interface LedgerAttempt {
  iteration: number;
  action: string;
  outcome: 'success' | 'failure' | 'noop';
  error?: string;
  tokensUsed?: number;
  item?: string;
  tick?: string;
  at?: string | number;
  [key: string]: unknown;
}

interface LedgerFile {
  goal: string;
  attempts: LedgerAttempt[];
  [key: string]: unknown;
}

/**
 * @example
 * ```ts
 * const attempts = new FileAttemptLedger({ root: '/repo', patternId: 'ci-sweeper', level: 'L2' });
 * await attempts.append({ itemKey: 'ci:build', tickId: 't1', at: clock.now(), outcome: 'failure', error: 'tests failed', tokensUsed: 900 });
 * ```
 */
export class FileAttemptLedger implements AttemptLedger {
  readonly path: string;
  private readonly options: FileAttemptLedgerOptions;

  constructor(options: FileAttemptLedgerOptions) {
    this.options = options;
    this.path = resolve(options.root, options.file ?? 'loop-ledger.json');
  }

  /** Every attempt in file order. Attempts other tools wrote (no `item`) have itemKey "". */
  async history(): Promise<readonly AttemptRecord[]> {
    const text = await readTextOrNull(this.path);
    if (text === null) return [];
    return this.parse(text).attempts.map(toAttemptRecord);
  }

  /** Adds one attempt (next iteration number) with an atomic, locked rewrite. */
  async append(record: AttemptRecord): Promise<void> {
    await updateFileAtomically(this.path, (old) => {
      const ledger = old === null ? this.fresh() : this.parse(old);
      const iteration = ledger.attempts.reduce((max, attempt) => Math.max(max, Number(attempt.iteration) || 0), 0) + 1;
      const attempt: LedgerAttempt = {
        iteration,
        action: this.options.describeAction?.(record) ?? `attempt ${record.itemKey}`,
        outcome: record.outcome,
        ...(record.error === undefined ? {} : { error: this.options.redact ? this.options.redact(record.error) : record.error }),
        tokensUsed: record.tokensUsed,
        item: record.itemKey,
        tick: record.tickId,
        at: new Date(record.at).toISOString(),
      };
      ledger.attempts.push(attempt);
      return `${JSON.stringify(ledger, null, 2)}\n`;
    });
  }

  private fresh(): LedgerFile {
    const pattern = this.options.patternId;
    return {
      goal: this.options.goal ?? (pattern ? `Run the ${pattern} loop to completion` : 'Run the loop to completion'),
      ...(pattern === undefined ? {} : { pattern }),
      ...(this.options.level === undefined ? {} : { level: this.options.level }),
      attempts: [],
    };
  }

  private parse(text: string): LedgerFile {
    let value: unknown;
    try {
      value = text.trim() === '' ? this.fresh() : JSON.parse(text);
    } catch (error) {
      throw new LoopRuntimeError('STATE_FAILED', `${this.path} is not valid JSON: ${(error as Error).message}.`, {
        cause: error,
        fix: `repair the file or move it aside; it must look like {"goal": "...", "attempts": []}.`,
      });
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new LoopRuntimeError('STATE_FAILED', `${this.path} is not a ledger object.`, {
        fix: `make it look like {"goal": "...", "attempts": []}.`,
      });
    }
    const ledger = value as Partial<LedgerFile>;
    if (ledger.attempts !== undefined && !Array.isArray(ledger.attempts)) {
      throw new LoopRuntimeError('STATE_FAILED', `${this.path}: "attempts" is not a list.`, {
        fix: 'make "attempts" a JSON array of {iteration, action, outcome} objects.',
      });
    }
    // loop-context requires both keys; add them (and nothing else) when another tool left them out.
    return { ...ledger, goal: typeof ledger.goal === 'string' ? ledger.goal : this.fresh().goal, attempts: ledger.attempts ?? [] };
  }
}

function toAttemptRecord(attempt: LedgerAttempt): AttemptRecord {
  const at = typeof attempt.at === 'number' ? attempt.at : typeof attempt.at === 'string' ? Date.parse(attempt.at) : Number.NaN;
  return {
    itemKey: typeof attempt.item === 'string' ? attempt.item : '',
    tickId: typeof attempt.tick === 'string' ? attempt.tick : '',
    at: Number.isNaN(at) ? 0 : at,
    outcome: attempt.outcome === 'success' || attempt.outcome === 'noop' ? attempt.outcome : 'failure',
    ...(typeof attempt.error === 'string' ? { error: attempt.error } : {}),
    tokensUsed: typeof attempt.tokensUsed === 'number' ? attempt.tokensUsed : 0,
  };
}
