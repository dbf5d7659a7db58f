export interface PauseStatus {
  paused: boolean;
  /** Which form set it, e.g. "file loop-pause-all", "STATE.md line", "env LOOP_RUNTIME_PAUSE". */
  source?: string;
}

/**
 * Honours every observed form of the kill switch. Checked at tick start and before every backend call.
 * `check()` reads the current state each time (no caching): a switch set mid-tick stops the next phase.
 */
export interface KillSwitch {
  readonly specificationVersion: 'kill-switch-v1';
  check(): Promise<PauseStatus>;
}
