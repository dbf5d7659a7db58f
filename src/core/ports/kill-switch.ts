/** Halt reasons that stop a loop until a human clears them with `loop-runtime resume <id>`. */
export type StickyHaltReason = 'backend-stopped' | 'budget-overrun';

/**
 * A halt a human must clear: the tick that halted, why, and when. Persisted by the project store's kill switch
 * (files: a `kind: halted` line in the loop's run log; Postgres: a `loop_runtime_halts` row), so every later tick of the loop —
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
 * What every kill switch answers from what it found: a halt outranks a pause (it is the reason a human must act).
 *
 * @example
 * ```ts
 * pauseStatusOf(null, [{ source: 'file loop-pause-all' }]); // → { paused: true, source: 'file loop-pause-all' }
 * ```
 */
export function pauseStatusOf(halt: LoopHalt | null, found: readonly { source: string }[]): PauseStatus {
  const [first] = found;
  if (halt) return { paused: true, source: first?.source ?? 'halt', halt };
  return first ? { paused: true, source: first.source } : { paused: false };
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

/** One form of the kill switch that is set now. */
export interface PauseSource {
  kind: 'env' | 'file' | 'loop-file' | 'state-line' | 'halt' | 'store';
  source: string;
  /** Whether `resume()` can clear it (the environment and lines humans wrote are never changed). */
  clearable: boolean;
  /** The one loop this pause is for (its pause file or row); absent: it stops every loop, or it is a halt. */
  loop?: string;
  /** Who set it and why, when the store keeps that (a `pause <id> --reason` on the fleet store). */
  by?: string;
  reason?: string;
  /** When it was set (epoch ms), when known. */
  since?: number;
}

/** Who pauses, and why: kept by stores that can (Postgres rows), named by `status`. */
export interface PauseRequest {
  /** One loop; absent: every loop of the project. */
  patternId?: string;
  by?: string;
  reason?: string;
  at?: number;
}

/**
 * The kill switch a project's store keeps (`ProjectStores.killSwitch`): every process of the project —
 * any checkout on the file store's state branch, any machine on the fleet store — reads and writes the
 * same pauses and halts through it. `check()` and `halt()` are what the engine uses; the rest is for
 * `pause`, `resume`, `status`, `doctor` and the console.
 *
 * @example
 * ```ts
 * const kill = stores.killSwitch(plan, { env: process.env });
 * await kill.pause({ patternId: 'ci-sweeper', by: 'ana@host', reason: 'flaky CI' });
 * (await kill.sources())[0]; // { kind: 'store', source: 'paused by ana@host: flaky CI', clearable: true, … }
 * ```
 */
export interface StoreKillSwitch extends KillSwitch {
  halt(record: LoopHalt): Promise<void>;
  /** The loop's halt no one has cleared yet, or null. */
  activeHalt(): Promise<LoopHalt | null>;
  /** Clears the loop's halt, recording who and when; returns the halt it cleared, or null. */
  clearHalt(request: { by: string; at: number }): Promise<LoopHalt | null>;
  pause(request?: PauseRequest): Promise<void>;
  /** Clears what `pause` set (all, or one loop's); the environment and state-file lines stay as humans set them. */
  resume(scope?: { patternId?: string }): Promise<void>;
  /** Every form that is set now, in the order `check()` honours them. */
  sources(): Promise<PauseSource[]>;
}
