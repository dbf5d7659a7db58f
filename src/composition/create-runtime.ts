/**
 * The composition root: wires a plan to real adapters (files, git, sandbox,
 * backend plugin) or, for --dry-run, to read-only/in-memory ones that leave
 * the repository byte-for-byte untouched.
 */
import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { BudgetBreaker } from '../core/budget/budget-breaker.js';
import { OverlayBudgetLedger } from '../adapters/budget-ledger/overlay-budget-ledger.js';
import { MemoryAttemptLedger } from '../adapters/attempt-ledger/memory-attempt-ledger.js';
import { systemClock } from '../adapters/clock/system-clock.js';
import { SequentialIds } from '../core/engine/sequential-ids.js';
import type { EnginePorts } from '../core/engine/engine-ports.js';
import { LoopEngine } from '../core/engine/loop-engine.js';
import type { AgentBackend, Clock, CommandRunner, EngineObserver, KillSwitch, TickLease } from '../core/ports/index.js';
import { isLoopRuntimeError } from '../core/errors.js';
import { scrubEnv } from '../core/security/scrub-env.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import { MemoryStateWriter } from '../adapters/state-writer/memory-state-writer.js';
import { MemoryWorkspace } from '../adapters/workspace/memory-workspace.js';
import { FileStateWriter } from '../adapters/state-writer/file-state-writer.js';
import { DryRunGitWorkspace, localOnlyDelivery } from '../adapters/workspace/git-dry-run-workspace.js';
import { gitDeliveryFor, gitWorkspaceFor, redactorFor } from './wiring.js';
import type { LoadedProject } from '../project/load-project.js';
import type { ProjectStores } from './stores/project-stores.js';
import { loadInstructions } from '../project/load-instructions.js';
import type { EventItem } from '../adapters/discovery/event-discovery.js';
import { worktreeHidingPaths } from '../adapters/workspace/worktrees-location.js';
// Static: the backend choice and the opencode model are small, and an `import()` of the model made it an entry point
// of its own, split off the agent detection beside it (one more file for `status`, `plan`, `validate` and a tick).
import { withChosenBackend } from './backend-choice.js';
// The mock is every dry run's backend: imported, an `import()` of it loaded a facade file on each one.
import { createMockBackend } from '../../backends/mock/index.js';
import { OPENCODE_KEY_PROVIDERS, openCodeProvider } from '../adapters/agents/opencode-model.js';

export interface RuntimeOptions {
  dryRun: boolean;
  env: Record<string, string | undefined>;
  /** The clock for the engine and every adapter; the system clock when absent. */
  clock?: Clock;
  observer?: EngineObserver;
  /** Injected backend (tests); otherwise the plan's backend plugin is resolved. */
  backend?: AgentBackend;
  /** Below L3, run commands without a sandbox when none is available (logged). */
  allowUnsandboxed?: boolean;
  /** Where operational notes go (sandbox opt-outs). */
  log?: (line: string) => void;
  /** The operator's stop (Ctrl-C), handed to the engine's ports. */
  signal?: AbortSignal;
  /** The project's shared stores (files or the fleet's Postgres); files when absent. */
  stores?: ProjectStores;
  /** An event-triggered tick's one work item (`run --event-item`): discovery yields it and triage is held to it. */
  eventItem?: EventItem;
  /** The loop lease the tick runs under (`ports.lease`): a tick whose lease was taken over stops before its next shared write. */
  lease?: TickLease;
}

export interface LoopRuntime {
  engine: LoopEngine;
  /** How this runtime differs from the plan as written (e.g. commands a dry-run does not run). */
  notes: string[];
  ports: EnginePorts;
  dryRun: boolean;
  close(): Promise<void>;
}

/** Reads a repository file for the dry-run overlay, refusing paths that leave the repository. */
function confinedReader(root: string): (path: string) => Promise<string | null> {
  return async (path) => {
    const target = resolve(root, path);
    const inside = relative(root, target);
    if (inside.startsWith('..') || isAbsolute(inside)) return null;
    try {
      const real = await realpath(target);
      const realInside = relative(await realpath(root), real);
      if (realInside.startsWith('..') || isAbsolute(realInside)) return null;
      return await readFile(real, 'utf8');
    } catch {
      return null;
    }
  };
}

export async function createLoopRuntime(project: LoadedProject, writtenPlan: ExecutionPlan, options: RuntimeOptions): Promise<LoopRuntime> {
  const root = project.root;
  const clock = options.clock ?? systemClock;
  const notes: string[] = [];
  let plan = writtenPlan;
  if (options.dryRun && plan.phases.verify.commands.length > 0) {
    // A rehearsal runs no project commands: the mock's edit proves nothing a test suite could check. The tick
    // names what a real run would run, and escalates for want of evidence as a real tick without commands would.
    const notRunInRehearsal = plan.phases.verify.commands.map((command) => command.command);
    plan = { ...plan, phases: { ...plan.phases, verify: { ...plan.phases.verify, commands: [], notRunInRehearsal } } };
  }
  const instructions = await loadInstructions(project, plan.pattern.id);
  const worktreesDir = project.settings?.worktreesDir ?? null;
  const resolvedBackend = options.backend ?? (await resolvePlanBackend(plan, root, options, worktreesDir));
  // A tick on a GitHub event (`--event-item`) only: every other tick loads no event code.
  const event = options.eventItem ? { item: options.eventItem, module: await import('../adapters/discovery/event-discovery.js') } : null;
  const backend = event ? event.module.pinTriageToItem(resolvedBackend, event.item.item) : resolvedBackend;
  if (event) plan = event.module.withEventProbe(plan);
  // Imported, not a static import: `status` loads these stores alone, and a second importer would give esbuild's
  // dynamic import a facade chunk (one more file for the ESM loader).
  const stores = options.stores ?? (await import('./stores/file-stores.js')).fileStores(project, clock);
  // Halts that need a human and pauses are kept in the project's store, so every later tick (any process) stops until `resume`.
  const storeKillSwitch = stores.killSwitch(plan, { env: options.env, redact: redactorFor(options.env, root), backendName: backend.name });
  // A dry run honours a persisted halt but never writes one.
  const killSwitch: KillSwitch = options.dryRun ? { specificationVersion: storeKillSwitch.specificationVersion, check: () => storeKillSwitch.check() } : storeKillSwitch;
  // Every line a tick writes names its backend, so mock spend never counts against a real cap and `reset --mock` finds it.
  const ledger = stores.budgetLedger(plan, backend.name);
  // Secret values from the environment and common token shapes never reach a file we write.
  const redact = redactorFor(options.env, root);
  const wiring = { root, clock, env: options.env, redact, worktreesDir, deliveryLedger: stores.deliveryLedger(), outcomes: stores.outcomes() };

  let ports: EnginePorts;
  let dryRunWorkspace: DryRunGitWorkspace | null = null;
  if (options.dryRun) {
    const pastAttempts = stores.attempts(plan, backend.name, redact);
    ports = {
      backend,
      // Max runs/day counts the real run log's runs too: a rehearsal shows the skip a real tick would take.
      state: new MemoryStateWriter({ stateFile: plan.files.state, priorRuns: (patternId, day) => new FileStateWriter({ root, stateFile: plan.files.state, runLog: plan.files.runLog }).runsOn(patternId, day) }),
      budget: new BudgetBreaker(plan.dailyTokenCap, { ledger: new OverlayBudgetLedger(ledger), degradeAtFraction: plan.budget.degradeAtFraction }),
      // A temporary copy (borrowing the objects) made only if the tick reaches the act phase; removed by close().
      workspace: (dryRunWorkspace = new DryRunGitWorkspace({
        root,
        patternId: plan.pattern.id,
        baseBranch: plan.delivery.baseBranch,
        clock,
        fallback: new MemoryWorkspace({ readBase: confinedReader(root) }),
        onFallback: (reason) => notes.push(`dry-run: ${reason}, so the rehearsal used an in-memory copy of the files instead of a temporary git clone`),
      })),
      delivery: localOnlyDelivery,
      attempts: new MemoryAttemptLedger(await pastAttempts.history()),
      killSwitch,
      clock,
      ids: new SequentialIds(clock),
      instructions,
    };
  } else {
    ports = {
      backend,
      state: new FileStateWriter({ root, stateFile: plan.files.state, runLog: plan.files.runLog, redact, backend: backend.name }),
      budget: new BudgetBreaker(plan.dailyTokenCap, { ledger, degradeAtFraction: plan.budget.degradeAtFraction }),
      workspace: gitWorkspaceFor(wiring, plan.pattern.id, plan.delivery.baseBranch),
      delivery: gitDeliveryFor(wiring, plan),
      attempts: stores.attempts(plan, backend.name, redact),
      killSwitch,
      clock,
      ids: new SequentialIds(clock),
      instructions,
      // Probes run only for real ticks: --dry-run promises no command beyond the mock's runs.
      // Loaded here, not with the module: a dry run runs no probe.
      discovery: event
        ? new event.module.EventDiscovery(event.item.item, event.item.note)
        : new (await import('../adapters/discovery/probe-discovery.js')).ProbeDiscovery({ root, env: options.env }),
      items: stores.itemLeases(plan),
    };
  }
  if (!options.dryRun && plan.phases.verify.enabled) {
    const commands = await commandRunnerFor(plan, root, options, worktreesDir);
    if (commands) ports.commands = commands;
  }
  ports.clock = clock;
  if (options.observer) ports.observer = options.observer;
  if (options.signal) ports.signal = options.signal;
  if (options.lease && !options.dryRun) ports.lease = options.lease;
  const engine = new LoopEngine(plan, ports);
  return {
    engine,
    notes,
    ports,
    dryRun: options.dryRun,
    close: async () => {
      await backend.close?.();
      await dryRunWorkspace?.close();
    },
  };
}

/**
 * The sandboxed runner for verification commands and the implementer's
 * run_command. Without a sandbox: verification commands are refused (the
 * tick halts) unless the user opted out below L3; a loop with no commands
 * runs on without a runner.
 */
async function commandRunnerFor(plan: ExecutionPlan, root: string, options: RuntimeOptions, worktreesDir: string | null): Promise<CommandRunner | undefined> {
  const { createSandboxedRunner } = await import('../adapters/command-runner/bwrap-runner.js');
  try {
    return await createSandboxedRunner({
      level: plan.level,
      allowUnsandboxed: options.allowUnsandboxed ?? false,
      log: options.log ?? (() => {}),
      // The host environment, not a scrubbed copy: every runner scrubs what the command sees itself, and needs
      // the secret values to redact them from the evidence (a scrubbed copy holds none, so nothing was redacted).
      env: options.env,
      // Other worktrees (this repository's and others') stay out of sight; the command's own is bound back writable.
      // Computed from this process's environment, like the worktrees' own location (WorktreeStore).
      hiddenExtra: worktreeHidingPaths(root, worktreesDir),
      // The checkout is never readable by a command, and its secret-file values are redacted from every output.
      repository: { root, skip: worktreeHidingPaths(root, worktreesDir) },
    });
  } catch (error) {
    if (isLoopRuntimeError(error) && error.code === 'SANDBOX_UNAVAILABLE' && plan.phases.verify.commands.length === 0) {
      options.log?.(`sandbox: ${error.message} The implementer gets no command tool; no verification commands are configured.`);
      return undefined;
    }
    throw error;
  }
}

/** Backend environment: an allowlist plus the provider's own variables, never the whole process environment. */
function backendEnv(env: Record<string, string | undefined>): Record<string, string> {
  const provider = Object.entries(env).filter(([name, value]) => value !== undefined && /^(ANTHROPIC_|CLAUDE_|OPENAI_|OLLAMA_)/.test(name));
  return { ...scrubEnv(env), ...Object.fromEntries(provider as Array<[string, string]>) };
}

/** The agent CLI backends: contained in bubblewrap behind the metering proxy (backends/shared/contained-cli.ts). */
const CONTAINED_CLI_BACKENDS = new Set(['claude-code', 'claude', 'codex', 'opencode', 'gemini-cli', 'gemini']);

/**
 * The plan's backend. Every agent CLI gets the loop's level and sandbox opt-out: it runs contained in
 * bubblewrap, and without it is refused at L3 (and below L3 unless --allow-unsandboxed).
 */
async function resolvePlanBackend(writtenPlan: ExecutionPlan, root: string, options: RuntimeOptions, worktreesDir: string | null): Promise<AgentBackend> {
  const env = options.env;
  if (options.dryRun || writtenPlan.backend.name === 'mock') return createMockBackend(writtenPlan.backend.options as never);
  // An unconfigured loop runs the first installed agent of its candidates, or stops (exit 3) — never the mock.
  const { plan } = withChosenBackend(writtenPlan, root, env);
  const { resolveBackend } = await import('../../backends/registry.js');
  const settings: Record<string, unknown> = { model: plan.backend.model, ...plan.backend.options };
  if (plan.backend.name === 'claude-code' || plan.backend.name === 'claude') {
    settings.inheritEnv ??= false;
    settings.env = { ...backendEnv(env), ...(settings.env as Record<string, string> | undefined) };
  }
  if (CONTAINED_CLI_BACKENDS.has(plan.backend.name)) {
    // Every agent CLI runs in the same sandbox behind the same metering proxy, or is refused at L3.
    settings.level = plan.level;
    settings.allowUnsandboxed = options.allowUnsandboxed ?? false;
    if (worktreesDir) settings.worktreesDir = worktreesDir;
    if (options.log) settings.log = options.log;
  }
  if (plan.backend.name === 'codex') {
    // Codex gets its provider from the config we write, so the usual OpenAI variables are read here.
    settings.baseUrl ??= env['OPENAI_BASE_URL'];
    const keyVariable = typeof settings.apiKeyEnv === 'string' ? settings.apiKeyEnv : 'OPENAI_API_KEY';
    const key = env[keyVariable];
    if (key) settings.env = { [keyVariable]: key, ...(settings.env as Record<string, string> | undefined) };
  }
  if (plan.backend.name === 'opencode') {
    // The model is the plan's (configured, or chosen from the key that is set, in withChosenBackend); its provider's
    // endpoint and key come from the runtime env, which the isolated opencode does not otherwise see.
    const model = typeof settings.model === 'string' ? settings.model : undefined;
    const provider = openCodeProvider(model, env, settings.provider as Record<string, unknown> | undefined);
    if (provider) settings.provider = provider;
    const keyVariable = OPENCODE_KEY_PROVIDERS.find((candidate) => model?.startsWith(`${candidate.provider}/`))?.keyVariable;
    const key = keyVariable ? env[keyVariable] : undefined;
    if (keyVariable && key) settings.env = { [keyVariable]: key, ...(settings.env as Record<string, string> | undefined) };
  }
  return resolveBackend(plan.backend.name, settings, { root: join(root) });
}
