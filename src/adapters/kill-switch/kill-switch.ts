/**
 * The kill switch in every form seen in the wild: a root file named
 * `loop-pause-all`, a line `loop-pause-all: true` in the state file, or the
 * environment variable LOOP_RUNTIME_PAUSE — plus one loop's own pause file,
 * `.loop-runtime/paused/<loop>` (written by `serve`'s Pause button). Checked
 * at tick start and before every backend call, so it reads the disk each time.
 *
 * With `runLog`, it also keeps halts that need a human (`halt()`): a
 * `kind: halted` line in the loop's run log stops every later tick of the
 * loop until `clearHalt()` (`loop-runtime resume <id>`) appends a
 * `kind: resumed` line naming who and when.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { LoopHalt, PauseRequest, PauseSource, PauseStatus, StoreKillSwitch } from '../../core/ports/index.js';
import { pauseStatusOf } from '../../core/ports/kill-switch.js';
import { activeHalt, haltRunLogLine, resumeRunLogLine } from '../../core/state/halt-lines.js';
import { appendRunLogLine, parseRunLog, type RunLogEntry } from '../../core/state/run-log.js';
import { isoSecond } from '../../core/state/state-blocks.js';
import { hasPauseLine } from '../../core/state/pause-line.js';
import { readTextOrNull, updateFileAtomically, withFileLock, writeTextAtomically } from '../fs/atomic-file.js';

export interface FileKillSwitchOptions {
  root: string;
  /** The pattern's state file (STATE.md or `<pattern>-state.md`); optional. */
  stateFile?: string;
  /** Environment to read LOOP_RUNTIME_PAUSE from (default process.env). */
  env?: Record<string, string | undefined>;
  /** The loop this switch guards: its own pause file `.loop-runtime/paused/<id>` counts too. */
  patternId?: string;
  /** The loop's run log: where halts that need a human are kept (needs `patternId`). */
  runLog?: string;
  /** Applied to a halt's message before it is written (secret values never reach the run log). */
  redact?: (text: string) => string;
  /** Written as `backend` on halt lines (`"mock"` marks rehearsals `reset --mock` removes). */
  backend?: string;
  /** The loop's level, written on halt lines. */
  level?: string;
  /**
   * How `check()` and `activeHalt()` read the state file and the run log (absolute path; null when the file does
   * not exist). Default: the file, at every call. `status` passes one reader shared with its own reads, so a
   * report reads each file once; writes (`halt`, `clearHalt`) always read the file itself, under its lock.
   */
  readText?: (path: string) => Promise<string | null>;
  /**
   * How `check()` and `activeHalt()` read the run log's entries (absolute path; null when the file does not exist).
   * Default: `readText`, then parsed. A report over many loops sharing one run log (the console's loop list) passes
   * one that parses each run log once.
   */
  readRunLog?: (path: string) => Promise<readonly RunLogEntry[] | null>;
}

export type { PauseSource } from '../../core/ports/index.js';

/** A loop's own pause file, relative to the repository root. */
export function loopPauseFile(patternId: string): string {
  if (!/^[a-z][a-z0-9-]*$/.test(patternId)) throw new RangeError(`"${patternId}" is not a loop id.`);
  return `.loop-runtime/paused/${patternId}`;
}

/**
 * @example
 * ```ts
 * const kill = new FileKillSwitch({ root: '/repo', stateFile: 'STATE.md', env: process.env });
 * const status = await kill.check(); // { paused: true, source: 'file loop-pause-all' }
 * ```
 */
export class FileKillSwitch implements StoreKillSwitch {
  readonly specificationVersion = 'kill-switch-v1' as const;
  private readonly root: string;
  private readonly stateFile: string | undefined;
  private readonly env: Record<string, string | undefined>;

  constructor(options: FileKillSwitchOptions) {
    this.root = resolve(options.root);
    this.stateFile = options.stateFile;
    this.env = options.env ?? process.env;
    this.patternId = options.patternId;
    this.options = options;
  }

  private readonly patternId: string | undefined;
  private readonly options: FileKillSwitchOptions;

  /** A halt outranks a pause: it is the reason a human must act. */
  async check(): Promise<PauseStatus> {
    const { halt, found } = await this.gather();
    return pauseStatusOf(halt, found);
  }

  /** The loop's halt no one has resumed yet, or null (always null without `runLog` and `patternId`). */
  async activeHalt(): Promise<LoopHalt | null> {
    const path = this.runLogPath();
    if (!path || !this.patternId) return null;
    if (this.options.readRunLog) {
      const entries = await this.options.readRunLog(path);
      return entries === null ? null : activeHalt(entries, this.patternId);
    }
    const text = await this.readText(path);
    return text === null ? null : activeHalt(parseRunLog(text), this.patternId);
  }

  /** Persists a halt that needs a human: a `kind: halted` line in the run log (atomic, locked). */
  async halt(record: LoopHalt): Promise<void> {
    const path = this.runLogPath();
    if (!path) return;
    const redact = this.options.redact ?? ((text: string) => text);
    const line = { ...haltRunLogLine({ ...record, message: redact(record.message) }, this.options.level), ...(this.options.backend ? { backend: this.options.backend } : {}) };
    await updateFileAtomically(path, (old) => appendRunLogLine(old, line, { now: record.at, project: basename(this.root) }));
  }

  /**
   * Clears the loop's halt (`loop-runtime resume <id>`): appends a `kind: resumed` line naming who and
   * when, under the run log's lock. Returns the halt it cleared, or null when the loop was not halted.
   */
  async clearHalt(request: { by: string; at: number }): Promise<LoopHalt | null> {
    const path = this.runLogPath();
    const patternId = this.patternId;
    if (!path || !patternId) return null;
    if (!(await this.activeHalt())) return null;
    return withFileLock(path, async () => {
      const old = await readTextOrNull(path);
      const cleared = old === null ? null : activeHalt(parseRunLog(old), patternId);
      if (old === null || !cleared) return null;
      await writeTextAtomically(path, appendRunLogLine(old, resumeRunLogLine({ patternId, at: request.at, by: request.by, halt: cleared }), { now: request.at, project: basename(this.root) }));
      return cleared;
    });
  }

  private readText(path: string): Promise<string | null> {
    return (this.options.readText ?? readTextOrNull)(path);
  }

  private runLogPath(): string | null {
    return this.options.runLog ? resolve(this.root, this.options.runLog) : null;
  }

  /** Every form that is set now, in the order `check()` honours them (the first one holds). */
  async sources(): Promise<PauseSource[]> {
    return (await this.gather()).found;
  }

  /** The halt and every set form, read side by side (each is a file read or a stat; `check()` runs every tick). */
  private async gather(): Promise<{ halt: LoopHalt | null; found: PauseSource[] }> {
    const stateFile = this.stateFile;
    const [halt, allFile, loopFile, stateText] = await Promise.all([
      this.activeHalt(),
      exists(resolve(this.root, 'loop-pause-all')),
      this.patternId ? exists(resolve(this.root, loopPauseFile(this.patternId))) : false,
      stateFile ? this.readText(resolve(this.root, stateFile)) : null,
    ]);
    const found: PauseSource[] = [];
    if (halt) {
      found.push({ kind: 'halt', source: `${this.options.runLog} halted (${halt.reason}) since ${isoSecond(halt.at)}; loop-runtime resume ${halt.patternId} clears it`, clearable: true });
    }
    const flag = this.env.LOOP_RUNTIME_PAUSE?.trim().toLowerCase();
    if (flag === '1' || flag === 'true' || flag === 'yes') found.push({ kind: 'env', source: 'env LOOP_RUNTIME_PAUSE', clearable: false });
    if (allFile) found.push({ kind: 'file', source: 'file loop-pause-all', clearable: true });
    if (this.patternId && loopFile) found.push(await this.loopFileSource(this.patternId));
    if (stateText !== null && hasPauseLine(stateText)) found.push({ kind: 'state-line', source: `${stateFile} line loop-pause-all: true`, clearable: false });
    return { halt, found };
  }

  /**
   * Sets the switch: the root file `loop-pause-all` (every loop, left empty as the methodology writes it), or one
   * loop's pause file, holding who paused it and why (`ana@host: flaky CI`) for `status`.
   */
  async pause(request: PauseRequest = {}): Promise<void> {
    const path = resolve(this.root, request.patternId ? loopPauseFile(request.patternId) : 'loop-pause-all');
    await mkdir(dirname(path), { recursive: true });
    const note = request.patternId && request.by ? `${request.by}${request.reason ? `: ${request.reason}` : ''}\n` : '';
    await writeFile(path, note);
  }

  /** A loop's pause file, with who paused it and why when `pause` wrote them. */
  private async loopFileSource(patternId: string): Promise<PauseSource> {
    const file = loopPauseFile(patternId);
    const note = ((await readTextOrNull(resolve(this.root, file))) ?? '').split('\n')[0]!.trim();
    const split = note.indexOf(': ');
    const by = split < 0 ? note : note.slice(0, split);
    const reason = split < 0 ? '' : note.slice(split + 2);
    return { kind: 'loop-file', source: `file ${file}${by ? ` (paused by ${note})` : ''}`, clearable: true, loop: patternId, ...(by ? { by } : {}), ...(reason ? { reason } : {}) };
  }

  /** Clears the file this switch wrote (all, or one loop's); the env variable and state lines stay as humans set them. */
  async resume(scope: { patternId?: string } = {}): Promise<void> {
    await rm(resolve(this.root, scope.patternId ? loopPauseFile(scope.patternId) : 'loop-pause-all'), { force: true });
  }
}

/** Whether a pause file exists. Synchronous: usually it does not, and a failed asynchronous `access` cost a
 * thread-pool round trip and an exception object, twice per check (every tick, every loop of `status`). */
async function exists(path: string): Promise<boolean> {
  return existsSync(path);
}
