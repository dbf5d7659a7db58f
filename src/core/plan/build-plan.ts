/**
 * The planner: compiles one pattern plus its settings into an ExecutionPlan.
 * Pure and deterministic — the same inputs give byte-identical JSON — so a
 * plan can be reviewed and golden-tested before anything runs. Levels are
 * enforced here, as enabled/disabled phases, not in prompts.
 */
import { parseCadence } from '../config/cadence.js';
import type { Level, LoopSettings, Pattern } from '../config/schemas.js';
import { DEFAULT_GATE_POLICY } from '../gate/default-policy.js';
import { EXECUTION_PLAN_VERSION } from './execution-plan.js';
import { AUTO_BACKEND } from './execution-plan.js';
import type { BackendCandidate, ExecutionPlan, GatePolicy, ProbeSpec } from './execution-plan.js';

export interface BuildPlanOptions {
  /** Default: overrides.level ?? pattern.week_one_mode ?? 'L1'. */
  level?: Level;
  levelSource?: string;
  /** Merged settings for this loop (already validated). */
  overrides?: LoopSettings;
  /** Default: DEFAULT_GATE_POLICY. */
  gate?: GatePolicy;
  /** e.g. from loop-budget.md; overrides.dailyTokenCap wins. */
  dailyTokenCap?: { value: number; source: string };
  /** loop-budget.md's "Max runs/day" for this loop (enforced by the engine). */
  maxRunsPerDay?: { value: number; source: string };
  /** Used when overrides.verify is absent. */
  detectedVerifyCommands?: string[];
  /** The agents to choose from when no backend is configured (see `agentCandidates`). Default none. */
  backendCandidates?: BackendCandidate[];
}

const CAP_BY_TOKEN_COST = { low: 100_000, medium: 500_000, high: 2_000_000, 'very-high': 1_000_000 } as const;
const DEFAULT_CAP = 100_000;
const DEFAULT_AUTHOR = { name: 'loop-runtime', email: 'loop-runtime@users.noreply.github.com' } as const;

type PhaseName = 'triage' | 'workspace' | 'implement' | 'verify' | 'commit' | 'merge';

const PHASES_BY_LEVEL: Record<Level, ReadonlySet<PhaseName>> = {
  L0: new Set(),
  L1: new Set(['triage']),
  L2: new Set(['triage', 'workspace', 'implement', 'verify', 'commit']),
  L3: new Set(['triage', 'workspace', 'implement', 'verify', 'commit', 'merge']),
};

function resolveLevel(pattern: Pattern, options: BuildPlanOptions): { level: Level; levelSource: string } {
  if (options.level) return { level: options.level, levelSource: options.levelSource ?? 'explicit' };
  if (options.overrides?.level) return { level: options.overrides.level, levelSource: options.levelSource ?? 'front-matter' };
  if (pattern.week_one_mode) return { level: pattern.week_one_mode, levelSource: 'week-one-mode' };
  return { level: 'L1', levelSource: 'default' };
}

function resolveCap(pattern: Pattern, options: BuildPlanOptions): { value: number; source: string } {
  if (options.overrides?.dailyTokenCap !== undefined) return { value: options.overrides.dailyTokenCap, source: 'settings: dailyTokenCap' };
  if (options.dailyTokenCap) return { ...options.dailyTokenCap };
  if (pattern.cost?.suggested_daily_cap !== undefined) {
    return { value: pattern.cost.suggested_daily_cap, source: 'registry: cost.suggested_daily_cap' };
  }
  if (pattern.token_cost) return { value: CAP_BY_TOKEN_COST[pattern.token_cost], source: `registry: token_cost ${pattern.token_cost}` };
  return { value: DEFAULT_CAP, source: 'default' };
}

function reservation(override: number | undefined, estimate: number, cap: number, fraction: number): number {
  if (override !== undefined) return Math.max(1, override);
  return Math.max(1, Math.min(estimate, Math.floor(cap * fraction)));
}

/**
 * Builds the ExecutionPlan for one pattern.
 *
 * @example
 * ```ts
 * const plan = buildPlan(pattern, { level: 'L2', levelSource: 'cli', overrides: { verify: ['npm test'] } });
 * plan.phases.implement.enabled; // → true
 * plan.phases.merge.enabled; // → false (merge needs L3)
 * ```
 */
export function buildPlan(pattern: Pattern, options: BuildPlanOptions = {}): ExecutionPlan {
  const overrides = options.overrides ?? {};
  const { level, levelSource } = resolveLevel(pattern, options);
  const enabled = PHASES_BY_LEVEL[level];
  const cadence = parseCadence(pattern.cadence);
  const cap = resolveCap(pattern, options);
  const gate = options.gate ?? DEFAULT_GATE_POLICY;
  const verifyTimeoutMs = (overrides.timeoutSeconds ?? 600) * 1000;
  const probes: ProbeSpec[] = (overrides.probes ?? []).map((probe) => ({
    name: probe.name,
    command: probe.command,
    found: probe.found ?? 'non-empty',
    timeoutMs: (probe.timeoutSeconds ?? 60) * 1000,
  }));
  const delivery = overrides.delivery ?? {};
  return {
    version: EXECUTION_PLAN_VERSION,
    pattern: {
      id: pattern.id,
      name: pattern.name,
      goal: pattern.goal,
      risk: pattern.risk,
      document: pattern.file,
      phases: [...pattern.phases],
      humanGates: [...pattern.human_gates],
    },
    level,
    levelSource,
    cadence: { text: pattern.cadence, minIntervalMs: cadence.minIntervalMs, maxIntervalMs: cadence.maxIntervalMs },
    dailyTokenCap: cap.value,
    budget: {
      capSource: cap.source,
      degradeAtFraction: 0.8,
      // Bounded by 10% / 40% / 15% of the cap: together 65%, under the 80% degrade line, so one tick cannot
      // reserve its way past the point where the loop should already be report-only.
      reserve: {
        triage: reservation(overrides.reserve?.triage, pattern.cost?.tokens_report ?? 50_000, cap.value, 0.1),
        implement: reservation(overrides.reserve?.implement, pattern.cost?.tokens_action ?? 200_000, cap.value, 0.4),
        check: reservation(overrides.reserve?.check, pattern.cost?.tokens_report ?? 50_000, cap.value, 0.15),
      },
      ...(options.maxRunsPerDay ? { maxRunsPerDay: { ...options.maxRunsPerDay } } : {}),
    },
    phases: {
      triage: { enabled: enabled.has('triage') },
      workspace: { enabled: enabled.has('workspace') },
      implement: { enabled: enabled.has('implement') },
      verify: {
        enabled: enabled.has('verify'),
        commands: (overrides.verify ?? options.detectedVerifyCommands ?? []).map((command) => ({ command, timeoutMs: verifyTimeoutMs })),
        checker: true,
        protectedPaths: [...(overrides.protectedPaths ?? [])],
        testEdits: overrides.testEdits ?? 'escalate',
      },
      commit: { enabled: enabled.has('commit') },
      merge: { enabled: enabled.has('merge') },
    },
    gate: {
      source: gate.source,
      denylist: [...gate.denylist],
      maxFiles: gate.maxFiles,
      autoMergeAllowlist: [...gate.autoMergeAllowlist],
    },
    attempts: {
      maxPerItem: overrides.maxAttempts ?? 3,
      sameErrorLimit: 3,
      consecutiveFailureLimit: 5,
      maxIterations: overrides.maxIterations ?? 10,
    },
    earlyExit: { probes },
    backend: {
      // No `backend:` is never a silent mock: the runtime picks an installed agent or refuses to run.
      name: overrides.backend ?? AUTO_BACKEND,
      source: overrides.backend ? 'configured' : options.backendCandidates?.length ? 'tools' : 'default',
      candidates: overrides.backend ? [] : (options.backendCandidates ?? []).map((candidate) => ({ ...candidate })),
      model: overrides.model ?? null,
      options: structuredCloneJson(overrides.backendOptions ?? {}),
    },
    delivery: {
      mode: delivery.mode ?? 'local',
      remote: delivery.remote ?? 'origin',
      draft: delivery.draft ?? level !== 'L3',
      // Auto-merge is an L3 privilege; below L3 a setting asking for it is ignored.
      autoMerge: level === 'L3' && (delivery.autoMerge ?? false),
      maxOpenPullRequests: delivery.maxOpenPullRequests ?? 5,
      maxPullRequestsPerHour: delivery.maxPullRequestsPerHour ?? 2,
      branchPrefix: overrides.branchPrefix ?? `loop/${pattern.id}/`,
      baseBranch: overrides.baseBranch ?? null,
      author: overrides.author ? { name: overrides.author.name, email: overrides.author.email } : { ...DEFAULT_AUTHOR },
    },
    files: {
      state: overrides.stateFile ?? pattern.state,
      runLog: overrides.runLog ?? 'loop-run-log.md',
      ledger: 'loop-ledger.json',
    },
    timeoutMs: (overrides.timeoutSeconds ?? 1800) * 1000,
    autonomy: overrides.autonomy ? { ...overrides.autonomy, promote: { ...overrides.autonomy.promote } } : null,
  };
}

/** A JSON-only deep copy, so the plan shares nothing mutable with the settings it came from. */
function structuredCloneJson(value: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
