/**
 * The fleet store's schema. Each migration is idempotent (IF NOT EXISTS) and
 * recorded in `loop_runtime_schema_version`; every store applies them at
 * start under a transaction-scoped advisory lock, so workers starting at once
 * never race. A database newer than this code is refused, never downgraded.
 */
export const SCHEMA_VERSION = 6;

/** Key of the advisory lock migrations run under ("loop-runtime schema"). */
export const MIGRATION_LOCK_KEY = 0x6c72_7363;

export const MIGRATIONS: ReadonlyArray<{ version: number; statements: readonly string[] }> = [
  {
    version: 1,
    statements: [
      `CREATE TABLE IF NOT EXISTS loop_runtime_budget_days (
         scope text NOT NULL, day text NOT NULL, pattern_id text NOT NULL,
         PRIMARY KEY (scope, day, pattern_id))`,
      `CREATE TABLE IF NOT EXISTS loop_runtime_budget_entries (
         seq bigserial PRIMARY KEY,
         scope text NOT NULL, id text NOT NULL,
         day text NOT NULL, pattern_id text NOT NULL, tick_id text NOT NULL, phase text NOT NULL,
         at bigint NOT NULL, tokens bigint NOT NULL CHECK (tokens >= 0),
         state text NOT NULL CHECK (state IN ('open', 'settled', 'reconciled', 'recorded')),
         spent bigint CHECK (spent >= 0), cost_usd double precision, closed_at bigint, reason text,
         UNIQUE (scope, id))`,
      `CREATE INDEX IF NOT EXISTS loop_runtime_budget_entries_day ON loop_runtime_budget_entries (scope, day, pattern_id)`,
      `CREATE TABLE IF NOT EXISTS loop_runtime_attempts (
         seq bigserial PRIMARY KEY, scope text NOT NULL,
         pattern_id text, item_key text NOT NULL, tick_id text NOT NULL, at bigint NOT NULL,
         outcome text NOT NULL CHECK (outcome IN ('success', 'failure', 'noop')), error text, tokens_used bigint NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS loop_runtime_attempts_scope ON loop_runtime_attempts (scope, seq)`,
      `CREATE TABLE IF NOT EXISTS loop_runtime_leases (
         scope text NOT NULL, kind text NOT NULL CHECK (kind IN ('item', 'loop')), key text NOT NULL,
         holder text NOT NULL, tick_id text NOT NULL, since bigint NOT NULL, token text NOT NULL,
         PRIMARY KEY (scope, kind, key))`,
      `CREATE TABLE IF NOT EXISTS loop_runtime_delivery_ledgers (
         scope text PRIMARY KEY, ledger text NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS loop_runtime_runs (
         scope text NOT NULL, tick_id text NOT NULL, pattern_id text NOT NULL,
         started_at bigint NOT NULL, finished_at bigint NOT NULL, kind text NOT NULL,
         verdict text, commit_sha text, pull_request text, tokens bigint NOT NULL DEFAULT 0,
         phases jsonb NOT NULL DEFAULT '[]', record jsonb NOT NULL,
         PRIMARY KEY (scope, tick_id))`,
      `CREATE INDEX IF NOT EXISTS loop_runtime_runs_pattern ON loop_runtime_runs (scope, pattern_id, started_at DESC)`,
    ],
  },
  {
    // Version 2: each spend row names its backend, so a mock rehearsal's tokens never count against a real backend's cap.
    version: 2,
    statements: [`ALTER TABLE loop_runtime_budget_entries ADD COLUMN IF NOT EXISTS backend text`],
  },
  {
    // Version 3: the kill switch every process shares — pauses per scope and loop ('*': every loop) and halts that
    // need a human, with who, why and when; a cleared halt stays as history (cleared_by, cleared_at).
    version: 3,
    statements: [
      `CREATE TABLE IF NOT EXISTS loop_runtime_pauses (
         scope text NOT NULL, pattern_id text NOT NULL, paused_by text NOT NULL, reason text, at bigint NOT NULL,
         PRIMARY KEY (scope, pattern_id))`,
      `CREATE TABLE IF NOT EXISTS loop_runtime_halts (
         seq bigserial PRIMARY KEY, scope text NOT NULL, pattern_id text NOT NULL, tick_id text NOT NULL,
         reason text NOT NULL, message text NOT NULL, started_at bigint NOT NULL, at bigint NOT NULL, tokens bigint NOT NULL,
         cleared_by text, cleared_at bigint)`,
      `CREATE INDEX IF NOT EXISTS loop_runtime_halts_open ON loop_runtime_halts (scope, pattern_id) WHERE cleared_at IS NULL`,
    ],
  },
  {
    // Version 4: fencing numbers on leases. Each acquire (or takeover) draws the next number of one sequence, so a
    // lease's fence only grows, whoever takes it; a tick checks its fence is still the row's before each shared write.
    version: 4,
    statements: [
      `CREATE SEQUENCE IF NOT EXISTS loop_runtime_lease_fence`,
      `ALTER TABLE loop_runtime_leases ADD COLUMN IF NOT EXISTS fence bigint NOT NULL DEFAULT nextval('loop_runtime_lease_fence')`,
    ],
  },
  {
    // Version 5: outcome lines (proposals, observations, level changes) every process shares, in append order. The
    // tick id is set on a tick's proposal appended once per tick, unique per scope: a tick is recorded once.
    version: 5,
    statements: [
      `CREATE TABLE IF NOT EXISTS loop_runtime_outcomes (
         seq bigserial PRIMARY KEY, scope text NOT NULL, tick_id text, line jsonb NOT NULL)`,
      `CREATE INDEX IF NOT EXISTS loop_runtime_outcomes_scope ON loop_runtime_outcomes (scope, seq)`,
      `CREATE UNIQUE INDEX IF NOT EXISTS loop_runtime_outcomes_tick ON loop_runtime_outcomes (scope, tick_id) WHERE tick_id IS NOT NULL`,
    ],
  },
  {
    // Version 6: attempts and run-history rows name their backend, as spend rows do (version 2), so `reset --mock`
    // removes a rehearsal's attempts (which a circuit breaker counts) and its history rows. Older rows stay null: real.
    version: 6,
    statements: [
      `ALTER TABLE loop_runtime_attempts ADD COLUMN IF NOT EXISTS backend text`,
      `ALTER TABLE loop_runtime_runs ADD COLUMN IF NOT EXISTS backend text`,
    ],
  },
];
