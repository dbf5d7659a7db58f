/** Halt reasons that stop a loop until a human clears them with `loop-runtime resume <id>`. */
export type StickyHaltReason = 'backend-stopped' | 'budget-overrun';

/**
 * A halt a human must clear: the tick that halted, why, and when. Persisted by the kill switch
 * (`FileKillSwitch`: a `kind: halted` line in the loop's run log), so every later tick of the loop —
 * from any process or entry point — stops before any model call until `loop-runtime resume <id>`.
 */
export interface LoopHalt {
  patternId: string;
  reason: StickyHaltReason;
  message: string;
  tickId: string;
  /** The halted tick's start and end (epoch ms). */
  startedAt: number;
  at: number;
  /** Tokens the halted tick spent (already in the budget ledger). */
  tokens: number;
}

export interface PauseStatus {
  paused: boolean;
  /** Which form set it, e.g. "file loop-pause-all", "STATE.md line", "env LOOP_RUNTIME_PAUSE". */
  source?: string;
  /** Set when the loop is halted until a human resumes it (then `paused` is true as well). */
  halt?: LoopHalt;
}

/**
 * Honours every observed form of the kill switch. Checked at tick start and before every backend call.
 * `check()` reads the current state each time (no caching): a switch set mid-tick stops the next phase.
 *
 * Optional capability `halt(record)`: persist a halt that needs a human, so `check()` reports it (with
 * `halt` set) from then on, in this process and every later one, until a human clears it. The engine
 * calls it for `STICKY_HALT_REASONS`; a kill switch without it keeps no halt beyond the tick.
 */
export interface KillSwitch {
  readonly specificationVersion: 'kill-switch-v1';
  check(): Promise<PauseStatus>;
  halt?(record: LoopHalt): Promise<void>;
}
