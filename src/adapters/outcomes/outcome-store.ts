/**
 * `.loop-runtime/outcomes.jsonl` on disk: appended one line per write under
 * the file's lock, read whole and folded. A corrupt file is `STATE_FAILED`
 * (see `parseOutcomeLines`), never an empty history.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { foldOutcomes, formatOutcomeLine, parseOutcomeLines, type OutcomeHistory, type OutcomeLine } from '../../core/outcomes/index.js';
import { readTextOrNull, withFileLock, writeTextAtomically } from '../fs/atomic-file.js';
import { looseOutcomeLine, rehearsalLineIndexes } from './rehearsal-lines.js';

/** Relative to the repository root. */
export const OUTCOMES_FILE = '.loop-runtime/outcomes.jsonl';

/**
 * Where a project's outcome lines live — proposals, observations, level changes — for every process that must agree
 * on them (the one-open-proposal rule, autonomy, metrics): `ProjectStores.outcomes()` gives the file below or the
 * fleet store's `PostgresOutcomeStore`; both pass `runOutcomeStoreConformance`.
 *
 * @example
 * ```ts
 * const outcomes = stores.outcomes();
 * await outcomes.append(proposals, { oncePer: 'tick' }); // → 1; 0 when another process already recorded that tick
 * const { changes } = await outcomes.history();
 * ```
 */
export interface OutcomeStore {
  /**
   * Whose lines: one checkout's (the outcomes file) or every checkout's of the repository (the fleet store). In a
   * shared store a local proposal may be another checkout's: a commit this checkout does not have is not judged here.
   */
  readonly reach: 'checkout' | 'repository';
  /** Every line, in append order; an unreadable store throws `STATE_FAILED`, never an empty list. */
  lines(): Promise<OutcomeLine[]>;
  /** The lines folded into tracked changes and level changes. */
  history(): Promise<OutcomeHistory>;
  /**
   * Appends `lines` together (all or none). With `oncePer: 'tick'`, a proposal whose tick id is already recorded is
   * skipped, also when another process appends the same tick at the same moment. Returns how many were added.
   */
  append(lines: readonly OutcomeLine[], options?: { oncePer?: 'tick' }): Promise<number>;
  /**
   * Removes one loop's rehearsal: its proposals the mock backend delivered and their observations
   * (`rehearsalLineIndexes`, the one rule), for `reset <id> --mock`. Every other line stays as it was. Returns how many went.
   */
  removeRehearsal(patternId: string): Promise<number>;
}

/** The outcomes file beside the repository (the default store). */
export class FileOutcomeStore implements OutcomeStore {
  readonly reach = 'checkout' as const;
  readonly path: string;

  constructor(readonly root: string) {
    this.path = join(root, OUTCOMES_FILE);
  }

  async lines(): Promise<OutcomeLine[]> {
    return parseOutcomeLines(await readTextOrNull(this.path), OUTCOMES_FILE);
  }

  async history(): Promise<OutcomeHistory> {
    return foldOutcomes(await this.lines());
  }

  /**
   * Appends lines in one write, under the lock, after checking the file is readable (never appends to a corrupt
   * file). With `oncePer: 'tick'`, a proposal of a tick already in the file (same tick id) is not appended again: a
   * fleet tick resumed after its worker died records its delivered change once (the first record, the one its run
   * history has). Returns how many were added.
   */
  async append(lines: readonly OutcomeLine[], options: { oncePer?: 'tick' } = {}): Promise<number> {
    if (lines.length === 0) return 0;
    await mkdir(dirname(this.path), { recursive: true });
    return withFileLock(this.path, async () => {
      const existing = await readTextOrNull(this.path);
      const parsed = parseOutcomeLines(existing, OUTCOMES_FILE);
      const recorded = new Set(parsed.flatMap((line) => (line.type === 'proposal' && line.tickId ? [line.tickId] : [])));
      const fresh = options.oncePer === 'tick' ? lines.filter((line) => !(line.type === 'proposal' && line.tickId && recorded.has(line.tickId))) : lines;
      if (fresh.length === 0) return 0;
      const added = fresh.map((line) => `${formatOutcomeLine(line)}\n`).join('');
      if (existing && !existing.endsWith('\n')) {
        // A torn last append (a crash mid-write) would become a corrupt middle line: drop it, rewrite whole.
        await writeTextAtomically(this.path, existing.slice(0, existing.lastIndexOf('\n') + 1) + added);
      } else {
        await appendFile(this.path, added);
      }
      return fresh.length;
    });
  }

  /** Rewrites the file without the rehearsal's lines, under the appenders' lock; other lines keep their bytes. */
  async removeRehearsal(patternId: string): Promise<number> {
    if ((await readTextOrNull(this.path)) === null) return 0;
    return withFileLock(this.path, async () => {
      const old = await readTextOrNull(this.path);
      if (old === null) return 0;
      const lines = old.split('\n');
      const drop = rehearsalLineIndexes(lines.map(looseOutcomeLine), patternId);
      if (drop.size > 0) await writeTextAtomically(this.path, lines.filter((_, index) => !drop.has(index)).join('\n'));
      return drop.size;
    });
  }
}
