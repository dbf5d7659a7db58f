import type { KillSwitch, LoopHalt, PauseStatus } from '../../core/ports/index.js';

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

  /** The persisted halt (set by the engine through `halt()`), until `clearHalt()`. */
  halted: LoopHalt | null = null;

  async halt(record: LoopHalt): Promise<void> {
    this.halted = { ...record };
  }

  /** What `loop-runtime resume` does to the file twin: clears the halt and returns it. */
  clearHalt(): LoopHalt | null {
    const cleared = this.halted;
    this.halted = null;
    return cleared;
  }

  async check(): Promise<PauseStatus> {
    this.checks += 1;
    if (this.halted) return { paused: true, source: this.status.source ?? `halted (${this.halted.reason})`, halt: { ...this.halted } };
    return { ...this.status };
  }
}
