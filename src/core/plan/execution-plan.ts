/**
 * The ExecutionPlan: what one loop may do at one autonomy level, compiled
 * from registry.yaml + LOOP.md + gate.yaml + loop-budget.md by `buildPlan`.
 *
 * It is plain JSON (no functions, no class instances, no Dates) with a
 * `version` field, so `loop-runtime plan <id> --json` can be reviewed, diffed
 * and golden-tested before anything runs. The engine reads nothing else to
 * decide what a tick may do: levels are enforced here, not in prompts.
 */
import type { Level } from '../config/schemas.js';
import type { BackendCandidate } from './agent-tools.js';

export type { BackendCandidate } from './agent-tools.js';

export const EXECUTION_PLAN_VERSION = 1 as const;

export type DeliveryMode = 'local' | 'push' | 'pull-request';

export type BackendSource = 'configured' | 'tools' | 'default';

/** The backend name of a loop with no `backend:`: chosen from the plan's candidates when a real tick starts. */
export const AUTO_BACKEND = 'auto';

export interface GatePolicy {
  /** Where the policy came from: the project's gate.yaml or our built-in default. */
  source: string;
  denylist: string[];
  maxFiles: number | null;
  autoMergeAllowlist: string[];
}

export interface CommandSpec {
  /** Shell command line, run with `sh -c` in the worktree. */
  command: string;
  timeoutMs: number;
}

export interface ProbeSpec extends CommandSpec {
  name: string;
  found: 'non-empty' | 'json-entries' | 'exit-zero';
}

export interface ExecutionPlan {
  version: typeof EXECUTION_PLAN_VERSION;
  pattern: {
    id: string;
    name: string;
    goal: string;
    risk: 'low' | 'medium' | 'high';
    /** The pattern document (relative to the package's or project's patterns/). */
    document: string;
    phases: string[];
    humanGates: string[];
  };
  level: Level;
  /** Where the level came from, for review: cli, front-matter, ledger, week-one-mode, default. */
  levelSource: string;
  cadence: { text: string; minIntervalMs: number; maxIntervalMs: number };
  dailyTokenCap: number;
  budget: {
    capSource: string;
    /** At or above this fraction of the cap, a tick only reports. */
    degradeAtFraction: number;
    /** Tokens reserved before each phase starts; a phase whose reservation would cross the cap does not start. */
    reserve: { triage: number; implement: number; check: number };
    /**
     * loop-budget.md's "Max runs/day" for this loop (absent: no limit). Enforced: a tick of a loop that already
     * ran this many times on the UTC day halts (`max-runs-per-day`) before any model call.
     */
    maxRunsPerDay?: { value: number; source: string };
  };
  /**
   * What each phase may do at this level; the engine enforces every switch. Triage off: nothing runs.
   * Workspace or implement off: the tick only reports. Verify off: no change is approved (escalated).
   * Commit off: a verified change is kept for a human, never committed. Merge on: auto-merge is asked for
   * only when `delivery.autoMerge` is set, the verifier approved with evidence and every path is on the
   * gate's allowlist (always: there is no switch to merge outside it).
   */
  phases: {
    triage: { enabled: boolean };
    workspace: { enabled: boolean };
    implement: { enabled: boolean };
    /**
     * `testEdits`: whether edits to tests and their configuration escalate (default) or are this loop's job.
     * `notRunInRehearsal`: the commands a dry-run took out of `commands` (a rehearsal runs no project command), so
     * the tick can say what a real run would run instead of "no commands configured".
     */
    verify: { enabled: boolean; commands: CommandSpec[]; checker: boolean; protectedPaths: string[]; testEdits: 'escalate' | 'allow'; notRunInRehearsal?: string[] };
    commit: { enabled: boolean };
    merge: { enabled: boolean };
  };
  gate: GatePolicy;
  attempts: {
    maxPerItem: number;
    sameErrorLimit: number;
    consecutiveFailureLimit: number;
    /** The turn limit of every backend call (`maxTurns` in the request); loop-context's "10 iterations max". */
    maxIterations: number;
  };
  earlyExit: {
    /** Deterministic probes run before any model call; none finding work ends the tick as a no-op. */
    probes: ProbeSpec[];
  };
  /**
   * Which agent runs. `name: 'auto'` means no `backend:` was configured: a real tick runs the first installed
   * of `candidates` (the project's scaffold folders, then the pattern's `tools:`) and stops with exit 3 when none
   * is; a dry run always uses the mock.
   */
  backend: {
    name: string;
    /** `configured`: `backend:` in settings or `--backend`; `tools`: chosen from `candidates`; `default`: nothing names an agent. */
    source: BackendSource;
    candidates: BackendCandidate[];
    model: string | null;
    options: Record<string, unknown>;
  };
  delivery: {
    mode: DeliveryMode;
    remote: string;
    draft: boolean;
    autoMerge: boolean;
    maxOpenPullRequests: number;
    maxPullRequestsPerHour: number;
    branchPrefix: string;
    baseBranch: string | null;
    author: { name: string; email: string };
  };
  files: { state: string; runLog: string; ledger: string };
  timeoutMs: number;
  /**
   * How the level follows results (`autonomy:` in the settings), or null: no automatic level change. Applied
   * between ticks by the runtime (demote or pause only); promotion is only ever recommended.
   */
  autonomy: AutonomyPolicy | null;
}

/** The `autonomy:` policy as the plan carries it (every default filled in). */
export interface AutonomyPolicy {
  window: number;
  minAcceptance: number;
  action: 'demote' | 'pause';
  onRevert: 'demote' | 'pause' | 'ignore';
  promote: { minAcceptance: number; minProposals: number; minDays: number; minAuditScore: number };
}
