import type { KillSwitch, PauseStatus } from '../../core/ports/index.js';

/**
 * A kill switch tests flip by hand.
 *
 * @example
 * ```ts
 * const kill = new MemoryKillSwitch();
 * kill.pause('test');
 * await kill.check(); // { paused: true, source: 'test' }
 * ```
 */
export class MemoryKillSwitch implements KillSwitch {
  readonly specificationVersion = 'kill-switch-v1' as const;
  /** How many times `check()` was called (the engine checks before every backend call). */
  checks = 0;
  private status: PauseStatus = { paused: false };

  pause(source = 'memory'): void {
    this.status = { paused: true, source };
  }

  resume(): void {
    this.status = { paused: false };
  }

  async check(): Promise<PauseStatus> {
    this.checks += 1;
    return { ...this.status };
  }
}
