/**
 * What one tick did, as a discriminated union on `kind`. Plain data: it can
 * be logged, rendered, compared in tests and serialized with --json.
 */
import type { GateAction, GateDecision } from '../gate/check-gate.js';
import type {
  ChangedFile,
  CommandEvidence,
  CommitRecord,
  DeliveryRecord,
  Finding,
  TickRecord,
  Verdict,
  LoopHalt,
  StickyHaltReason,
  WorkItem,
} from '../ports/index.js';

/** One step of the tick, in order, for rendering and audit. */
export interface TickStep {
  phase: 'precondition' | 'kill-switch' | 'budget' | 'discovery' | 'triage' | 'workspace' | 'implement' | 'verify' | 'check' | 'gate' | 'commit' | 'deliver' | 'escalate';
  tokens: number;
  note: string;
}

export interface TickBase {
  tickId: string;
  patternId: string;
  level: string;
  startedAt: number;
  finishedAt: number;
  /** Tokens this tick spent (recorded in the budget ledger before the tick returned). */
  tokens: number;
  budget: { spentToday: number; dailyTokenCap: number };
  steps: TickStep[];
}

export interface VerificationSummary {
  verdict: Verdict;
  reasons: string[];
  /** The commands run over the change as the implementer left it. */
  evidence: CommandEvidence[];
  /** The commands run at the base commit before the implementer: which failed is what the item is about. */
  baseline?: BaselineSummary;
  /** The commands run with the base's tests, test configuration and scripts over the change (when it edited any). */
  baseTests?: CommandEvidence[];
  /** Test and verification paths the change edited. */
  verificationEdits?: Array<{ path: string; detail: string }>;
}

/** The verification commands at the base commit, once per attempt. `failing`: the commands that failed there. */
export interface BaselineSummary {
  commit: string;
  evidence: CommandEvidence[];
  failing: string[];
  /** The results came from the baseline cache: nothing ran in the workspace. */
  fromCache?: true;
}

/**
 * Why a loop halted. `budget-overrun`: a backend spent more than its phase's reservation (any phase).
 * `max-runs-per-day`: loop-budget.md's Max runs/day for the loop is reached for today (UTC).
 * `awaiting-resume`: an earlier tick halted for a reason a human must clear (`STICKY_HALT_REASONS`) and no one
 * has run `loop-runtime resume <id>` since; the tick stopped before any model call.
 */
export type HaltReason = 'budget-exhausted' | 'budget-overrun' | 'level-l0' | 'circuit-open' | 'backend-stopped' | 'awaiting-resume' | 'max-runs-per-day' | 'lease-lost';

/**
 * Halts that persist until `loop-runtime resume <id>`: the backend stopped (auth, quota, not installed) or
 * spent past its reservation — the next tick would fail or overspend the same way. Not sticky: `budget-exhausted`
 * (clears itself the next UTC day), `level-l0` (configuration), `circuit-open` (recomputed every tick from the
 * attempt ledger, itself persisted, so it already holds until a success or a human clears the attempts).
 */
export const STICKY_HALT_REASONS: readonly StickyHaltReason[] = ['backend-stopped', 'budget-overrun'];

/** True when a halt of this reason must persist until a human resumes the loop. */
export function isStickyHalt(reason: string): reason is StickyHaltReason {
  return (STICKY_HALT_REASONS as readonly string[]).includes(reason);
}

export type TickResult =
  /** `kept`: the worktree a stopped (interrupted) attempt left for a human, listed in the inbox, and its item. */
  | (TickBase & { kind: 'paused'; source: string; kept?: { path: string; branch: string; itemKey?: string; title?: string } })
  | (TickBase & { kind: 'halted'; reason: HaltReason; message: string; /** `awaiting-resume`: the persisted halt. */ halt?: LoopHalt })
  | (TickBase & { kind: 'noop'; summary: string })
  | (TickBase & { kind: 'report'; summary: string; findings: Finding[]; items: WorkItem[]; degraded: boolean; degradedReason?: string })
  | (TickBase & {
      kind: 'proposed';
      item: WorkItem;
      changes: ChangedFile[];
      verification: VerificationSummary;
      gate: GateDecision & { action: GateAction };
      commit: CommitRecord;
      delivery: DeliveryRecord | null;
      attempt: number;
    })
  | (TickBase & {
      kind: 'escalated';
      item: WorkItem;
      reason: string;
      changes: ChangedFile[];
      verification: VerificationSummary | null;
      gate: (GateDecision & { action: GateAction }) | null;
      attempt: number;
    })
  | (TickBase & {
      kind: 'rejected';
      item: WorkItem;
      reasons: string[];
      changes: ChangedFile[];
      verification: VerificationSummary | null;
      attempt: number;
      attemptsLeft: number;
    })
  | (TickBase & {
      kind: 'failed';
      phase: TickStep['phase'];
      message: string;
      retryable: boolean;
      stranded?: StrandedDelivery;
      /** Why, when the engine knows: `verification-cannot-run` — a verify command could not run at the base (not found, a usage error, no test collected); no implementer ran. */
      cause?: 'verification-cannot-run';
      /** With `verification-cannot-run`: each command that could not run, how, and its fix. */
      cannotRun?: Array<{ command: string; kind: 'command-not-found' | 'usage-error' | 'no-tests-collected'; message: string }>;
    });

/**
 * A verified, committed change whose delivery failed (phase `deliver`): the
 * delivery ledger holds it as `failed`, the inbox lists it, and
 * `loop-runtime deliver <worktree>` (or the loop's next tick) retries exactly
 * this commit.
 */
export interface StrandedDelivery {
  item: WorkItem;
  commit: CommitRecord;
  /** The worktree id: what `loop-runtime deliver <id>` takes. */
  worktree: string;
  reason: string;
}

export type TickKind = TickResult['kind'];

/** The run log's canonical outcome for a tick. */
export function runLogOutcome(result: TickResult): TickRecord['outcome'] {
  switch (result.kind) {
    case 'proposed':
      return 'fix-proposed';
    case 'escalated':
      return 'escalated';
    case 'report':
    case 'rejected':
      return 'report-only';
    case 'failed':
      return 'failed';
    case 'paused':
      return isInterrupted(result) ? 'interrupted' : 'no-op';
    case 'noop':
    case 'halted':
      return 'no-op';
  }
}

/** The pause source of a tick a stop signal (SIGINT/Ctrl-C, SIGTERM, SIGHUP) interrupted. */
export const INTERRUPT_SOURCE = 'interrupt';

/** True for a tick a stop signal (SIGINT, SIGTERM, SIGHUP) interrupted: settled, recorded `interrupted`, never a failure. */
export function isInterrupted(result: TickResult): boolean {
  return result.kind === 'paused' && result.source === INTERRUPT_SOURCE;
}

/** True for results that call for a non-zero exit: the tick could not do its job. */
export function isFailure(result: TickResult): boolean {
  return result.kind === 'failed';
}

/** True for results that stopped the loop on purpose (budget, kill switch, limits). */
export function isHalt(result: TickResult): boolean {
  return result.kind === 'halted' || result.kind === 'paused';
}
