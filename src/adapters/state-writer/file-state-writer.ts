/**
 * The StateWriter for files on disk: the state file (STATE.md or
 * `<pattern>-state.md`) and loop-run-log.md under the project root.
 */
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { LoopRuntimeError } from '../../core/errors.js';
import type { StateWriter, TickRecord } from '../../core/ports/index.js';
import { appendRunLogLine, runLogLineFromTick, runsOnDay } from '../../core/state/run-log.js';
import { updateStateFile } from '../../core/state/state-file.js';
import { readTextOrNull, updateFileAtomically } from '../fs/atomic-file.js';
import { checkStateText } from './check-state-text.js';
import { redactRunLogLine, redactTickRecord } from './redact-tick.js';

export interface FileStateWriterOptions {
  /** Project root; relative file names resolve against it. */
  root: string;
  /** State file name, e.g. "STATE.md" or "ci-sweeper-state.md". */
  stateFile: string;
  /** Run log file name, e.g. "loop-run-log.md". */
  runLog: string;
  /**
   * Applied to every piece of text the runtime writes (summaries, findings,
   * notes, run-log lines) before it reaches disk. Text already in the files
   * is never rewritten, so a human's bytes stay as they were.
   */
  redact?: (text: string) => string;
  /** Project name for fresh files (default: the root directory's name). */
  project?: string;
  /** Run-log entries older than this many days are pruned (default 30). */
  pruneDays?: number;
  /** The backend that runs the ticks, written as `backend` on each run-log line (`"mock"` marks rehearsals). */
  backend?: string;
}

/**
 * @example
 * ```ts
 * const state = new FileStateWriter({ root: '/repo', stateFile: 'STATE.md', runLog: 'loop-run-log.md' });
 * await state.recordTick(record);
 * ```
 */
export class FileStateWriter implements StateWriter {
  readonly specificationVersion = 'state-writer-v1' as const;
  readonly statePath: string;
  readonly runLogPath: string;
  private readonly stateName: string;
  private readonly runLogName: string;
  private readonly redact: (text: string) => string;
  private readonly project: string;
  private readonly pruneDays: number;
  private readonly backend: string | undefined;

  constructor(options: FileStateWriterOptions) {
    this.statePath = resolve(options.root, options.stateFile);
    this.runLogPath = resolve(options.root, options.runLog);
    this.stateName = options.stateFile;
    this.runLogName = options.runLog;
    this.redact = options.redact ?? ((text) => text);
    this.project = options.project ?? basename(resolve(options.root));
    this.pruneDays = options.pruneDays ?? 30;
    this.backend = options.backend;
  }

  /**
   * Updates the state file, then appends one run-log line; each write is atomic and locked.
   * A damaged file (merge conflict, NUL bytes, invalid UTF-8) is refused with `STATE_FAILED`
   * naming file and line, before anything is written.
   */
  async recordTick(record: TickRecord): Promise<void> {
    const safe = redactTickRecord(record, this.redact);
    // Checked before the state file changes too, so a damaged run log leaves both files as they were.
    await this.checked(await readTextOrNull(this.runLogPath), this.runLogPath, this.runLogName);
    await updateFileAtomically(this.statePath, async (old) =>
      updateStateFile(await this.checked(old, this.statePath, this.stateName), { tick: safe }, { project: this.project }),
    );
    const line = redactRunLogLine({ ...runLogLineFromTick(safe), ...(this.backend === undefined ? {} : { backend: this.backend }) }, this.redact);
    await updateFileAtomically(this.runLogPath, async (old) =>
      appendRunLogLine(await this.checked(old, this.runLogPath, this.runLogName), line, { now: record.finishedAt, pruneDays: this.pruneDays, project: this.project }),
    );
  }

  /** Writes a one-line note into the state file; no run-log line. */
  async note(patternId: string, at: number, line: string): Promise<void> {
    const note = { patternId, at, line: this.redact(line) };
    await updateFileAtomically(this.statePath, async (old) =>
      updateStateFile(await this.checked(old, this.statePath, this.stateName), { note }, { project: this.project }),
    );
  }

  /** Runs of `patternId` on the UTC day `day` by loop-run-log.md (what `Max runs/day` is held to). */
  async runsOn(patternId: string, day: string): Promise<number> {
    return runsOnDay(await this.checked(await readTextOrNull(this.runLogPath), this.runLogPath, this.runLogName), patternId, day);
  }

  /** The text, after refusing damaged files; invalid UTF-8 is only visible in the bytes. */
  private async checked(text: string | null, path: string, name: string): Promise<string | null> {
    checkStateText(text, name);
    if (text?.includes('\uFFFD')) await checkUtf8(path, name);
    return text;
  }
}

async function checkUtf8(path: string, name: string): Promise<void> {
  const bytes = await readFile(path);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let lineStart = 0;
  let line = 1;
  for (let index = 0; index <= bytes.length; index++) {
    if (index < bytes.length && bytes[index] !== 0x0a) continue;
    try {
      decoder.decode(bytes.subarray(lineStart, index));
    } catch {
      throw new LoopRuntimeError('STATE_FAILED', `${name}:${line}: the file is not valid UTF-8; rewriting it would replace those bytes and lose them.`, {
        fix: `save ${name} as UTF-8 (or restore it from git), then run the loop again.`,
        detail: { file: name, line },
      });
    }
    lineStart = index + 1;
    line++;
  }
}
