/**
 * `loop-runtime ci init` writes `.github/workflows/loop-runtime.yml` for the
 * configured loops (`--dry-run` prints it with a crontab line and systemd
 * units instead; `--print-cron` / `--print-systemd` print only those).
 * `loop-runtime ci summary <file.json>` turns `run --json` output into a job
 * summary and annotations.
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { formatDiagnostic } from '../../core/config/diagnostics.js';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import type { WorkflowLoop } from '../../ci/github-workflow.js';
import type { WorkflowInstall } from '../../ci/workflow-install.js';
import type { CommandContext, CommandOutput } from '../command.js';
import type { Clock } from '../../core/ports/clock.js';

export async function ciCommand(context: CommandContext): Promise<CommandOutput> {
  const action = context.args[0];
  if (action === 'init') return ciInit(context);
  if (action === 'summary') return ciSummary(context);
  if (action === 'due') return (await import('./ci-due.js')).ciDue(context);
  if (action === 'gate') return (await import('./ci-action.js')).ciGate(context);
  if (action === 'event') return (await import('./ci-action.js')).ciEvent(context);
  throw new LoopRuntimeError('USAGE', `ci ${action ?? ''} is not a ci action.`, { fix: 'use `loop-runtime ci init`, `loop-runtime ci due`, `loop-runtime ci summary <file.json>`, `loop-runtime ci gate` or `loop-runtime ci event`.' });
}

/** Agent backends that run contained in bubblewrap (see backends/shared/contained-cli.ts). */
const SANDBOXED_AGENTS = new Set(['claude-code', 'claude', 'codex', 'opencode', 'gemini-cli', 'gemini']);

/** Workflow inputs from execution plans. */
export function workflowLoopFromPlan(plan: ExecutionPlan): WorkflowLoop {
  return {
    id: plan.pattern.id,
    cadence: plan.cadence,
    backend: plan.backend.name,
    delivery: plan.delivery.mode,
    timeoutMs: plan.timeoutMs,
    probeCommands: plan.earlyExit.probes.map((probe) => probe.command),
    // Verification commands run only inside bubblewrap, and so does every agent CLI (refused without it at L3,
    // and below L3 unless --allow-unsandboxed, which the workflow never passes).
    sandbox: (plan.phases.verify.enabled && plan.phases.verify.commands.length > 0) || SANDBOXED_AGENTS.has(plan.backend.name),
  };
}

async function readJson(path: string): Promise<Record<string, unknown> | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

async function exists(path: string): Promise<boolean> {
  return readFile(path).then(() => true, () => false);
}

/**
 * How the workflow gets loop-runtime: the project's own dependency when it
 * has one, else the pinned `--package` spec. loop-runtime is not on the npm
 * registry, so there is no registry version to fall back to.
 */
async function installFor(root: string, packageSpec: unknown): Promise<WorkflowInstall> {
  const manifest = await readJson(join(root, 'package.json'));
  const dependencies = Object.keys({
    ...(manifest?.dependencies as object | undefined),
    ...(manifest?.devDependencies as object | undefined),
    ...(manifest?.optionalDependencies as object | undefined),
  });
  const lockfile = (await exists(join(root, 'package-lock.json'))) || (await exists(join(root, 'npm-shrinkwrap.json')));
  const project = manifest ? { lockfile } : null;
  if (packageSpec !== undefined) {
    if (typeof packageSpec !== 'string' || packageSpec.trim() === '' || /[\s'"`$\\]/.test(packageSpec)) {
      throw new LoopRuntimeError('USAGE', `--package ${JSON.stringify(packageSpec)} is not a package spec.`, {
        fix: 'pass a pinned git URL or tarball, e.g. --package github:<owner>/loop-runtime#<commit> or --package https://…/loop-runtime-0.1.0.tgz.',
      });
    }
    return { loopRuntime: { kind: 'package', spec: packageSpec }, project, dependencies };
  }
  if (dependencies.includes('loop-runtime') || manifest?.name === 'loop-runtime') {
    const spec = dependencySpec(manifest, 'loop-runtime');
    if (spec && /^(file|link):/.test(spec) && !insideRoot(root, spec.replace(/^(file|link):/, ''))) {
      throw new LoopRuntimeError('USAGE', `package.json installs loop-runtime from ${spec}, a path outside this repository that a CI runner does not have.`, {
        fix: 'pin it to a git commit or a tarball the runner can fetch (`npm install --save-dev github:<owner>/loop-runtime#<commit>`), or commit the tarball inside the repository, then run `ci init` again.',
      });
    }
    // A version range names the registry copy (`loop-runtime@^0.1`); a URL, git or path spec is a package spec itself.
    const pinned = (await lockedSpec(root)) ?? (spec && !/^(file:|link:|https?:|git|github:|[./])/.test(spec) ? `loop-runtime@${spec}` : spec);
    return { loopRuntime: { kind: 'project', ...(pinned && manifest?.name !== 'loop-runtime' ? { spec: pinned } : {}) }, project, dependencies };
  }
  throw new LoopRuntimeError(
    'USAGE',
    `${manifest ? 'package.json does not list loop-runtime in dependencies or devDependencies' : 'This repository has no package.json'}, and loop-runtime is not published on the npm registry, so the workflow would have nothing to install.`,
    {
      fix: 'add it as a devDependency pinned to a git commit or tarball (`npm install --save-dev github:<owner>/loop-runtime#<commit>`, then commit package.json and package-lock.json), or pass --package <git-url-or-tarball> to `ci init`.',
    },
  );
}

/** Where the lock file resolved loop-runtime (a tarball URL or a git URL at a commit): the due check fetches exactly that. */
async function lockedSpec(root: string): Promise<string | undefined> {
  for (const file of ['npm-shrinkwrap.json', 'package-lock.json']) {
    const lock = await readJson(join(root, file));
    const resolved = (lock?.packages as Record<string, { resolved?: unknown }> | undefined)?.['node_modules/loop-runtime']?.resolved;
    // A path inside the repository (`file:vendor/…`) stays as package.json wrote it; a registry or git URL is exact.
    if (typeof resolved === 'string' && /^(https?:|git\+|github:)/.test(resolved)) return resolved;
  }
  return undefined;
}

function dependencySpec(manifest: Record<string, unknown> | null, name: string): string | undefined {
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    const spec = (manifest?.[field] as Record<string, unknown> | undefined)?.[name];
    if (typeof spec === 'string') return spec;
  }
  return undefined;
}

function insideRoot(root: string, path: string): boolean {
  const inside = relative(root, resolve(root, path));
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside);
}

/** The command a server runs: the project's installed copy, or the pinned package through npx. */
function serverCommand(install: WorkflowInstall, shellWord: (text: string) => string): string {
  return install.loopRuntime.kind === 'project' ? 'npx --no loop-runtime' : `npx --yes --package=${shellWord(install.loopRuntime.spec)} loop-runtime`;
}

/**
 * A loop with no `backend:` runs the agent the runner installs: the one
 * installed here if any, else the first candidate. None at all stays `auto`,
 * and the job stops with exit 3 saying what to install.
 */
async function agentForWorkflow(plan: ExecutionPlan, root: string, env: Record<string, string | undefined>): Promise<ExecutionPlan> {
  if (plan.backend.name !== 'auto') return plan;
  const { describeBackendChoice } = await import('../../composition/backend-choice.js');
  const name = describeBackendChoice(plan, root, env).backend ?? plan.backend.candidates[0]?.backend;
  return name ? { ...plan, backend: { ...plan.backend, name } } : plan;
}

async function ciInit({ options, io }: CommandContext): Promise<CommandOutput> {
  const { loadProject, resolvePlan } = await import('../../project/load-project.js');
  const loaded = await loadProject(io.cwd);
  if (!loaded.ok) return { exitCode: ExitCode.configError, json: { issues: loaded.issues }, text: loaded.issues.map(formatDiagnostic).join('\n') };
  const project = loaded.project;
  const plans: ExecutionPlan[] = [];
  for (const id of project.configuredLoops) {
    const resolved = await resolvePlan(project, id);
    if (!resolved.ok) return { exitCode: ExitCode.configError, json: { issues: resolved.issues }, text: resolved.issues.map(formatDiagnostic).join('\n') };
    plans.push(await agentForWorkflow(resolved.plan, project.root, io.env));
  }
  if (plans.length === 0) {
    throw new LoopRuntimeError('CONFIG_INVALID', 'There are no configured loops to schedule.', {
      fix: 'set up a loop first (e.g. `npx loop-init`, or a registry.yaml / LOOP.md naming the loop), then run `loop-runtime ci init` again.',
    });
  }
  const { cronForCadence, validateCron } = await import('../../core/schedule/cron.js');
  const cron = typeof options.cron === 'string' ? options.cron : undefined;
  if (cron) {
    const problem = validateCron(cron);
    if (problem) throw new LoopRuntimeError('USAGE', `--cron ${JSON.stringify(cron)} is not a cron expression: ${problem}.`, { fix: 'pass five fields, e.g. --cron "*/15 * * * *".' });
  }
  const { githubWorkflow, WORKFLOW_PATH } = await import('../../ci/github-workflow.js');
  const { BACKEND_REQUIREMENTS, shellWord } = await import('../../ci/workflow-install.js');
  const { crontabLine, systemdUnits } = await import('../../ci/server-schedule.js');
  const stateBranch = options.state === false ? null : typeof options.stateBranch === 'string' ? options.stateBranch : 'loop-runtime-state';
  if (options.action || options.actionRef !== undefined) {
    const { ciInitAction } = await import('./ci-action.js');
    return ciInitAction({ root: project.root, loops: plans.map(workflowLoopFromPlan), stateBranch, ...(cron ? { cron } : {}), options });
  }
  const install = await installFor(project.root, options.package);
  const ciWorkflows = await (await import('./ci-action.js')).ciWorkflowNames(project.root, WORKFLOW_PATH);
  const workflow = githubWorkflow({ loops: plans.map(workflowLoopFromPlan), install, stateBranch, ciWorkflows, ...(cron ? { cron } : {}) });
  const server = {
    root: project.root,
    periodMs: Math.min(...plans.map((plan) => plan.cadence.minIntervalMs)),
    command: serverCommand(install, shellWord),
    timeoutMs: Math.max(...plans.map((plan) => plan.timeoutMs)),
  };
  const crontab = crontabLine(server);
  const systemd = systemdUnits(server);
  const schedules = plans.map((plan) => ({ loop: plan.pattern.id, cadence: plan.cadence.text, cron: cron ?? cronForCadence(plan.cadence, plan.pattern.id) }));
  const json = { path: WORKFLOW_PATH, schedules, stateBranch, install, workflow, crontab, systemd };

  if (options.printCron) return { exitCode: ExitCode.ok, json: { crontab }, text: crontab };
  if (options.printSystemd) return { exitCode: ExitCode.ok, json: { systemd }, text: `${systemd.service}\n${systemd.timer}` };
  if (options.dryRun) {
    const text = [`# ${WORKFLOW_PATH} (not written: --dry-run)`, workflow, '# crontab line', crontab, '', systemd.service, systemd.timer].join('\n');
    return { exitCode: ExitCode.ok, json: { ...json, written: false }, text };
  }
  const target = join(project.root, WORKFLOW_PATH);
  const exists = await readFile(target).then(() => true, () => false);
  if (exists && !options.force) {
    throw new LoopRuntimeError('USAGE', `${WORKFLOW_PATH} already exists; it was left as it is.`, { fix: 'pass --force to overwrite it, or --dry-run to see the new one first.' });
  }
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, workflow, 'utf8');
  const secrets = [...new Set(plans.flatMap((plan) => BACKEND_REQUIREMENTS[plan.backend.name]?.secrets ?? []))];
  const installs = plans.map((plan) => {
    const requirement = BACKEND_REQUIREMENTS[plan.backend.name];
    const parts = [requirement?.cli ? `${requirement.cli.spec} (global)` : null, requirement?.sdk ? requirement.sdk.spec : null, workflowLoopFromPlan(plan).sandbox ? 'bubblewrap' : null];
    const what = parts.filter((part) => part !== null).join(', ');
    return `  ${plan.pattern.id} (${plan.backend.name}): ${what || 'nothing beyond loop-runtime'}`;
  });
  const { eventTriggerFor } = await import('../../ci/event-triggers.js');
  const events = plans.flatMap((plan) => {
    const on = eventTriggerFor(plan.pattern.id, ciWorkflows)?.on;
    return on ? [`${plan.pattern.id} on ${Object.keys(on).join(' and ')}${on.workflow_run ? ` (failed runs of ${ciWorkflows.length ? ciWorkflows.join(', ') : 'CI'})` : ''}`] : [];
  });
  const text = [
    `Wrote ${WORKFLOW_PATH}: ${schedules.map((entry) => `${entry.loop} at "${entry.cron}"`).join(', ')}.`,
    install.loopRuntime.kind === 'project' ? 'loop-runtime comes from this project\'s dependencies (npm ci).' : `loop-runtime comes from ${install.loopRuntime.spec}.`,
    install.loopRuntime.spec ? 'A scheduled run asks `ci due` first (loop-runtime alone, through npx) and installs nothing more when its loop is not due.' : 'No pinned loop-runtime spec: every scheduled run installs first and `run --due` decides.',
    'Each job also installs:',
    ...installs,
    ...(events.length ? [`Events: ${events.join('; ')}; each only after \`ci gate\` found the actor has write access (bots, forks and read-only users are skipped).`] : []),
    stateBranch ? `State persists on the branch "${stateBranch}" (created by the first run).` : 'No state branch: budgets and attempts start fresh on every run.',
    secrets.length ? `Add these repository secrets: ${secrets.join(', ')}.` : 'No secrets needed for these backends.',
    'A job fails when its loop could not run (backend missing or logged out, no sandbox, circuit open); budget halts, pauses and held leases are warnings.',
  ].join('\n');
  return { exitCode: ExitCode.ok, json: { ...json, written: true }, text };
}

type OpenedRuntime = Awaited<ReturnType<typeof import('../../composition/runtime.js').openRuntime>>;
type OpenRuntimeOnce = () => Promise<OpenedRuntime>;

async function ciSummary({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const file = args[1];
  if (!file) throw new LoopRuntimeError('USAGE', 'ci summary needs the JSON file `run --json` wrote.', { fix: 'run `loop-runtime ci summary result.json`.' });
  const [{ renderCiSummary }, { payloadOf }] = await Promise.all([import('../../ci/ci-summary.js'), import('../envelope-schema.js')]);
  let output: unknown = null;
  try {
    output = payloadOf(JSON.parse(await readFile(resolve(io.cwd, file), 'utf8')));
  } catch {
    output = null;
  }
  const given = options.exitCode === undefined || options.exitCode === '' ? undefined : Number(options.exitCode);
  // One runtime (configuration and store) for the metrics section and the outputs' cost, opened only if one asks.
  let opening: Promise<OpenedRuntime> | null = null;
  const runtime: OpenRuntimeOnce = () =>
    (opening ??= import('../../composition/runtime.js').then(({ openRuntime }) => openRuntime({ cwd: io.cwd, env: io.env, clock: io.clock })));
  const metrics = await summaryMetrics(runtime, io.clock, output, typeof options.since === 'string' ? options.since : '30d');
  const summary = renderCiSummary(output, { ...(given !== undefined && Number.isInteger(given) ? { exitCode: given } : {}), ...(metrics ? { metrics } : {}) });
  const summaryPath = io.env.GITHUB_STEP_SUMMARY;
  if (summaryPath) await appendFile(summaryPath, `${summary.markdown}\n`, 'utf8');
  const priceNotice = options.outputs ? await writeActionOutputs(io.env.GITHUB_OUTPUT, output, runtime) : null;
  const text = [...summary.annotations, ...(priceNotice ? [priceNotice] : []), ...(summaryPath ? [] : [summary.markdown])].join('\n');
  return { exitCode: summary.exitCode, json: summary, text };
}

/**
 * `--outputs`: the Action's outputs (action.yml) into `$GITHUB_OUTPUT`, from the JSON (see action-outputs.ts); the cost
 * from the project's store (the spend journal, or the fleet's Postgres rows), priced by the backends' price table as
 * `metrics` and the console have it. A price nobody knows leaves `cost-usd` empty and returns the notice that says so.
 */
async function writeActionOutputs(path: string | undefined, output: unknown, runtime: OpenRuntimeOnce): Promise<string | null> {
  if (!path) throw new LoopRuntimeError('USAGE', 'ci summary --outputs needs GITHUB_OUTPUT, the file a GitHub step writes its outputs to; it is not set.', { fix: 'run it inside a GitHub Actions step (the Action does), or set GITHUB_OUTPUT=<file> to try it locally.' });
  const { actionOutputsWithCost, githubOutputLines, tickIdsIn } = await import('../../ci/action-outputs.js');
  // The project's store (files or the fleet's Postgres), as `metrics` reads it; a configuration that does not load
  // leaves the cost unknown (empty), never a guess.
  const spend = await runtime()
    .then((opened) => (opened.ok ? opened.runtime.spendOfTicks(tickIdsIn(output)) : new Map()))
    .catch(() => new Map());
  const { outputs, priceUnknown } = actionOutputsWithCost(output, spend);
  await appendFile(path, githubOutputLines(outputs), 'utf8');
  if (priceUnknown.length === 0) return null;
  return `::notice title=loop-runtime cost::cost-usd is empty: price unknown for the model of tick ${priceUnknown.join(', ')} (the backend reported no cost and its price table has no entry). To fix: set the backend's prices option for the model, if you want a cost.`;
}

/**
 * The run's loops' metrics over `window` (default 30 days; the state branch was pulled before the ticks), for the summary.
 * No loop in the output (no JSON, a config error): no section. A repository that cannot be read: a line saying why.
 */
async function summaryMetrics(runtime: OpenRuntimeOnce, clock: Clock, output: unknown, window: string): Promise<import('../../ci/ci-metrics.js').CiMetrics | null> {
  const [{ loopsInRunOutput }, { parseSince }] = await Promise.all([import('../../ci/ci-summary.js'), import('../../core/outcomes/index.js')]);
  const loops = loopsInRunOutput(output);
  if (loops.length === 0) return null;
  const since = parseSince(window, clock.now());
  if (since === null) throw new LoopRuntimeError('USAGE', `--since ${window} is not a duration or a date.`, { fix: 'use e.g. 12h, 30d, 2w or 2026-11-01.' });
  try {
    const opened = await runtime();
    if (!opened.ok) return { unavailable: `the configuration did not load (${opened.issues.length} problem(s)).` };
    const result = await opened.runtime.metrics(undefined, { since, audit: false });
    if (!result.ok) return { unavailable: `the configuration did not load (${result.issues.length} problem(s)).` };
    return { since: result.value.since, loops: result.value.loops.filter((loop) => loops.includes(loop.pattern)) };
  } catch (error) {
    return { unavailable: error instanceof Error ? error.message : String(error) };
  }
}
