/**
 * The kill switch in every form seen in the wild: a root file named
 * `loop-pause-all`, a line `loop-pause-all: true` in the state file, or the
 * environment variable LOOP_RUNTIME_PAUSE — plus one loop's own pause file,
 * `.loop-runtime/paused/<loop>` (written by `serve`'s Pause button). Checked
 * at tick start and before every backend call, so it reads the disk each time.
 */
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { KillSwitch, PauseStatus } from '../../core/ports/index.js';
import { hasPauseLine } from '../../core/state/state-file.js';
import { readTextOrNull } from '../fs/atomic-file.js';

export { MemoryKillSwitch } from './memory-kill-switch.js';

export interface FileKillSwitchOptions {
  root: string;
  /** The pattern's state file (STATE.md or `<pattern>-state.md`); optional. */
  stateFile?: string;
  /** Environment to read LOOP_RUNTIME_PAUSE from (default process.env). */
  env?: Record<string, string | undefined>;
  /** The loop this switch guards: its own pause file `.loop-runtime/paused/<id>` counts too. */
  patternId?: string;
}

/** One form of the kill switch that is set now. */
export interface PauseSource {
  kind: 'env' | 'file' | 'loop-file' | 'state-line';
  source: string;
  /** Whether `resume()` can clear it (the environment and lines humans wrote are never changed). */
  clearable: boolean;
}

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
export class FileKillSwitch implements KillSwitch {
  readonly specificationVersion = 'kill-switch-v1' as const;
  private readonly root: string;
  private readonly stateFile: string | undefined;
  private readonly env: Record<string, string | undefined>;

  constructor(options: FileKillSwitchOptions) {
    this.root = resolve(options.root);
    this.stateFile = options.stateFile;
    this.env = options.env ?? process.env;
    this.patternId = options.patternId;
  }

  private readonly patternId: string | undefined;

  async check(): Promise<PauseStatus> {
    const [first] = await this.sources();
    return first ? { paused: true, source: first.source } : { paused: false };
  }

  /** Every form that is set now, in the order `check()` honours them (the first one holds). */
  async sources(): Promise<PauseSource[]> {
    const found: PauseSource[] = [];
    const flag = this.env.LOOP_RUNTIME_PAUSE?.trim().toLowerCase();
    if (flag === '1' || flag === 'true' || flag === 'yes') found.push({ kind: 'env', source: 'env LOOP_RUNTIME_PAUSE', clearable: false });
    if (await exists(resolve(this.root, 'loop-pause-all'))) found.push({ kind: 'file', source: 'file loop-pause-all', clearable: true });
    if (this.patternId && (await exists(resolve(this.root, loopPauseFile(this.patternId))))) {
      found.push({ kind: 'loop-file', source: `file ${loopPauseFile(this.patternId)}`, clearable: true });
    }
    if (this.stateFile) {
      const text = await readTextOrNull(resolve(this.root, this.stateFile));
      if (text !== null && hasPauseLine(text)) found.push({ kind: 'state-line', source: `${this.stateFile} line loop-pause-all: true`, clearable: false });
    }
    return found;
  }

  /** Sets the switch: the root file `loop-pause-all` (every loop), or one loop's pause file. */
  async pause(scope: { patternId?: string } = {}): Promise<void> {
    const path = resolve(this.root, scope.patternId ? loopPauseFile(scope.patternId) : 'loop-pause-all');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, '');
  }

  /** Clears the file this switch wrote (all, or one loop's); the env variable and state lines stay as humans set them. */
  async resume(scope: { patternId?: string } = {}): Promise<void> {
    await rm(resolve(this.root, scope.patternId ? loopPauseFile(scope.patternId) : 'loop-pause-all'), { force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
