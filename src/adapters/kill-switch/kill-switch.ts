/**
 * The kill switch in every form seen in the wild: a root file named
 * `loop-pause-all`, a line `loop-pause-all: true` in the state file, or the
 * environment variable LOOP_RUNTIME_PAUSE. Checked at tick start and before
 * every backend call, so it reads the disk each time.
 */
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
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
  }

  async check(): Promise<PauseStatus> {
    const flag = this.env.LOOP_RUNTIME_PAUSE?.trim().toLowerCase();
    if (flag === '1' || flag === 'true' || flag === 'yes') return { paused: true, source: 'env LOOP_RUNTIME_PAUSE' };
    if (await exists(resolve(this.root, 'loop-pause-all'))) return { paused: true, source: 'file loop-pause-all' };
    if (this.stateFile) {
      const text = await readTextOrNull(resolve(this.root, this.stateFile));
      if (text !== null && hasPauseLine(text)) return { paused: true, source: `${this.stateFile} line loop-pause-all: true` };
    }
    return { paused: false };
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
