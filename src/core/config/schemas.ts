/**
 * zod schemas: the single source of the config types.
 *
 * Third-party files (registry.yaml, gate.yaml, loop-ledger.json) are validated
 * leniently: unknown keys are reported as warnings by the loader, never as
 * errors. Our own settings block (`loop-runtime:` in LOOP.md front matter) is
 * strict.
 */
import * as z from 'zod';
import { CADENCE_PATTERN, LEVELS } from './constants.js';
import { parseTokenAmount } from './token-amount.js';

export { CADENCE_PATTERN, KNOWN_TOOLS, LEVELS } from './constants.js';
export const LevelSchema = z.enum(LEVELS);
export type Level = z.infer<typeof LevelSchema>;

export const CostSchema = z.looseObject({
  tokens_noop: z.int().min(1000).optional(),
  tokens_report: z.int().min(1000).optional(),
  tokens_action: z.int().min(1000).optional(),
  suggested_daily_cap: z.int().min(10000).optional(),
  early_exit_required: z.boolean().optional(),
  stable_fraction: z.number().min(0).max(1).optional(),
});
export type PatternCost = z.infer<typeof CostSchema>;

export const PatternSchema = z.looseObject({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be lowercase kebab-case, e.g. "daily-triage"'),
  name: z.string().min(3),
  file: z.string().regex(/^[a-z0-9-]+\.md$/, 'must be a markdown file name like "daily-triage.md"'),
  goal: z.string().min(10),
  cadence: z.string().regex(CADENCE_PATTERN, 'is not a cadence'),
  risk: z.enum(['low', 'medium', 'high']),
  tools: z.array(z.string()),
  skills: z.array(z.string()).min(1),
  state: z.string().regex(/^[A-Za-z0-9-]+\.md$/, 'must be a markdown file name like "STATE.md"'),
  phases: z.array(z.string()).min(2),
  human_gates: z.array(z.string()).min(1),
  starter: z.string().optional(),
  week_one_mode: z.enum(['L1', 'L2', 'L3']).optional(),
  token_cost: z.enum(['low', 'medium', 'high', 'very-high']).optional(),
  cost: CostSchema.optional(),
});
export type Pattern = z.infer<typeof PatternSchema>;

export const RegistrySchema = z.looseObject({
  patterns: z.array(PatternSchema).min(1),
});
export type Registry = z.infer<typeof RegistrySchema>;

/** A path glob: minimatch refuses patterns over 64 KiB at match time, so a long one must fail here, not mid-tick. */
export const GlobSchema = z.string().max(1024, 'a path glob longer than 1024 characters cannot be a path pattern (minimatch throws on it at match time)');

export const GateConfigSchema = z.looseObject({
  version: z.literal(1),
  denylist: z.array(GlobSchema),
  maxFiles: z.number().optional(),
  autoMergeAllowlist: z.array(GlobSchema).optional(),
});
export type GateConfig = z.infer<typeof GateConfigSchema>;

export const LedgerAttemptSchema = z.looseObject({
  iteration: z.number(),
  action: z.string(),
  outcome: z.enum(['success', 'failure', 'noop']),
  error: z.string().optional(),
  tokensUsed: z.number().optional(),
});
export const LedgerSchema = z.looseObject({
  goal: z.string().optional(),
  pattern: z.string().optional(),
  level: z.string().optional(),
  attempts: z.array(LedgerAttemptSchema).default([]),
});
export type Ledger = z.infer<typeof LedgerSchema>;
export type LedgerAttempt = z.infer<typeof LedgerAttemptSchema>;

/** A token amount: a positive integer, or text such as `100k`, `1.5M`, `100,000` (read exactly, never partly). */
const positiveTokens = z.preprocess(
  (value) => (typeof value === 'string' ? (parseTokenAmount(value) ?? value) : value),
  z.int().positive(),
);

export const DeliverySchema = z.strictObject({
  mode: z.enum(['local', 'push', 'pull-request']).default('local'),
  remote: z.string().default('origin'),
  draft: z.boolean().optional(),
  autoMerge: z.boolean().default(false),
  maxOpenPullRequests: z.int().positive().default(5),
  maxPullRequestsPerHour: z.int().positive().default(2),
});

export const ProbeSchema = z.strictObject({
  name: z.string().min(1),
  command: z.string().min(1),
  /** How to read the output: non-empty stdout, a JSON array/object with entries, or exit code 0 = found. */
  found: z.enum(['non-empty', 'json-entries', 'exit-zero']).default('non-empty'),
  timeoutSeconds: z.int().positive().default(60),
});
export type ProbeSettings = z.infer<typeof ProbeSchema>;

/**
 * `autonomy:` — a loop's level follows its results. Present (even `{}`) turns
 * automatic demotion on with these defaults; absent, nothing changes a level
 * by itself. Nothing ever promotes on its own: `metrics` recommends, a human
 * runs `promote`.
 */
export const AutonomySchema = z.strictObject({
  /** Judge acceptance over the last N decided proposals at the current level. */
  window: z.int().min(1).max(100).default(10),
  /** Demote (or pause) when acceptance over the window falls below this fraction. */
  minAcceptance: z.number().min(0).max(1).default(0.3),
  /** What low acceptance does: one level down, or pause the loop (L0, with a note in the state file). */
  action: z.enum(['demote', 'pause']).default('demote'),
  /** What a reverted change does. */
  onRevert: z.enum(['demote', 'pause', 'ignore']).default('demote'),
  /** When `metrics` recommends a promotion (it never applies one). */
  promote: z
    .strictObject({
      minAcceptance: z.number().min(0).max(1).default(0.7),
      minProposals: z.int().min(1).default(10),
      minDays: z.int().min(0).default(7),
      minAuditScore: z.int().min(0).max(100).default(60),
    })
    .prefault({}),
});
export type AutonomySettings = z.infer<typeof AutonomySchema>;

/** Settings one loop (or all loops) may set. Our own format: strict. */
export const LoopSettingsSchema = z.strictObject({
  level: LevelSchema.optional(),
  backend: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  backendOptions: z.record(z.string(), z.unknown()).optional(),
  dailyTokenCap: positiveTokens.optional(),
  reserve: z
    .strictObject({
      triage: positiveTokens.optional(),
      implement: positiveTokens.optional(),
      check: positiveTokens.optional(),
    })
    .optional(),
  maxAttempts: z.int().min(1).max(10).optional(),
  maxIterations: z.int().min(1).optional(),
  branchPrefix: z
    .string()
    .regex(/^[A-Za-z0-9._/-]+$/, 'may only hold letters, digits, ".", "_", "-" and "/"')
    .optional(),
  baseBranch: z.string().min(1).optional(),
  verify: z.array(z.string().min(1)).optional(),
  protectedPaths: z.array(GlobSchema.min(1)).optional(),
  /**
   * Edits to tests and to what runs them (test files, test/lint/type/coverage configuration, package.json scripts,
   * Makefile, CI files): `escalate` (default) leaves every such change to a human; `allow` is for loops whose job is
   * to change tests. Either way verification also runs the base's unchanged tests over the change.
   */
  testEdits: z.enum(['escalate', 'allow']).optional(),
  probes: z.array(ProbeSchema).optional(),
  delivery: DeliverySchema.partial().optional(),
  author: z.strictObject({ name: z.string().min(1), email: z.string().min(3) }).optional(),
  stateFile: z.string().regex(/^[A-Za-z0-9._/-]+\.md$/).optional(),
  runLog: z.string().regex(/^[A-Za-z0-9._/-]+\.md$/).optional(),
  timeoutSeconds: z.int().positive().optional(),
  autonomy: AutonomySchema.optional(),
});
export type LoopSettings = z.infer<typeof LoopSettingsSchema>;

/** `env:NAME`: a value read from the environment at run time, never written in a committed file. */
export const ENV_REFERENCE = /^env:[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Where the shared stores live (root LOOP.md only): `files` (default: spend, attempts, leases and deliveries under
 * `.loop-runtime/`) or `postgres` (the fleet store, URL from LOOP_RUNTIME_DATABASE_URL), or
 * `{ url: env:NAME, scope? }` to name the variable holding the URL. A URL itself never belongs in a committed file.
 */
export const StoreSchema = z.union([
  z.enum(['files', 'postgres']),
  z.strictObject({
    url: z.string().regex(ENV_REFERENCE, 'must name the environment variable holding the database URL, as env:NAME (e.g. env:LOOP_RUNTIME_DATABASE_URL): a URL carries a password, which never belongs in a committed file'),
    /** Which fleet's rows this repository's loops use (default: the `origin` remote, else the repository path). */
    scope: z.string().min(1).max(200).optional(),
  }),
]);
export type StoreSetting = z.infer<typeof StoreSchema>;

/**
 * `notify:`: tell a human on escalation, halt, circuit open and failed delivery. The webhook URL is a secret (it
 * is the credential), so the file names the environment variable that holds it, as `store:` does.
 */
export const NotifySchema = z.strictObject({
  webhook: z.string().regex(ENV_REFERENCE, 'must name the environment variable holding the webhook URL, as env:NAME (e.g. env:LOOP_RUNTIME_WEBHOOK_URL): the URL is the credential, which never belongs in a committed file'),
  /** The console's base URL (e.g. http://127.0.0.1:4317), for a link to the loop in each message. */
  console: z.string().url().optional(),
});
export type NotifySetting = z.infer<typeof NotifySchema>;

/** The `loop-runtime:` block of LOOP.md front matter. */
export const RuntimeSettingsSchema = LoopSettingsSchema.extend({
  version: z.literal(1).default(1),
  /**
   * Where the repository's loop worktrees live: a directory relative to the checkout or absolute (`~/` allowed).
   * Default: the user's state directory, outside the checkout, where the project's own tools do not look.
   */
  worktreesDir: z.string().min(1).optional(),
  store: StoreSchema.optional(),
  notify: NotifySchema.optional(),
  loops: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), LoopSettingsSchema).optional(),
});
export type RuntimeSettings = z.infer<typeof RuntimeSettingsSchema>;
