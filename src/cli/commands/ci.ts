/**
 * `loop-runtime ci init` writes `.github/workflows/loop-runtime.yml` for the
 * configured loops (`--dry-run` prints it with a crontab line and systemd
 * units instead; `--print-cron` / `--print-systemd` print only those).
 * `loop-runtime ci summary <file.json>` turns `run --json` output into a job
 * summary and annotations.
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { formatDiagnostic } from '../../core/config/diagnostics.js';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import type { WorkflowLoop, WorkflowOptions } from '../../ci/github-workflow.js';
import type { CommandContext, CommandOutput } from '../command.js';

export async function ciCommand(context: CommandContext): Promise<CommandOutput> {
  const action = context.args[0];
  if (action === 'init') return ciInit(context);
  if (action === 'summary') return ciSummary(context);
  throw new LoopRuntimeError('USAGE', `ci ${action ?? ''} is not a ci action.`, { fix: 'use `loop-runtime ci init` or `loop-runtime ci summary <file.json>`.' });
}

/** Workflow inputs from execution plans. */
export function workflowLoopFromPlan(plan: ExecutionPlan): WorkflowLoop {
  return {
    id: plan.pattern.id,
    cadence: plan.cadence,
    backend: plan.backend.name,
    delivery: plan.delivery.mode,
    timeoutMs: plan.timeoutMs,
    probeCommands: plan.earlyExit.probes.map((probe) => probe.command),
  };
}

async function readJson(path: string): Promise<Record<string, unknown> | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

async function installFor(root: string, packageRoot: string): Promise<WorkflowOptions['install']> {
  const manifest = await readJson(join(root, 'package.json'));
  const dependencies = { ...(manifest?.dependencies as object | undefined), ...(manifest?.devDependencies as object | undefined) };
  if ('loop-runtime' in dependencies) {
    const lockfile = (await readFile(join(root, 'package-lock.json')).then(() => true, () => false)) || (await readFile(join(root, 'npm-shrinkwrap.json')).then(() => true, () => false));
    return { kind: 'project', lockfile };
  }
  const ours = await readJson(join(packageRoot, 'package.json'));
  return { kind: 'npx', spec: `loop-runtime@${typeof ours?.version === 'string' ? ours.version : 'latest'}` };
}

async function ciInit({ options, io }: CommandContext): Promise<CommandOutput> {
  const { loadProject, resolvePlan } = await import('../../project/load-project.js');
  const loaded = await loadProject(io.cwd);
  if (!loaded.ok) return { exitCode: ExitCode.configError, json: { ok: false, issues: loaded.issues }, text: loaded.issues.map(formatDiagnostic).join('\n') };
  const project = loaded.project;
  const plans: ExecutionPlan[] = [];
  for (const id of project.configuredLoops) {
    const resolved = await resolvePlan(project, id);
    if (!resolved.ok) return { exitCode: ExitCode.configError, json: { ok: false, issues: resolved.issues }, text: resolved.issues.map(formatDiagnostic).join('\n') };
    plans.push(resolved.plan);
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
  const { githubWorkflow, loopRuntimeCommand, WORKFLOW_PATH } = await import('../../ci/github-workflow.js');
  const { crontabLine, systemdUnits } = await import('../../ci/server-schedule.js');
  const install = await installFor(project.root, project.packageRoot);
  const stateBranch = options.state === false ? null : typeof options.stateBranch === 'string' ? options.stateBranch : 'loop-runtime-state';
  const workflow = githubWorkflow({ loops: plans.map(workflowLoopFromPlan), install, stateBranch, ...(cron ? { cron } : {}) });
  const server = {
    root: project.root,
    periodMs: Math.min(...plans.map((plan) => plan.cadence.minIntervalMs)),
    command: install.kind === 'project' ? 'npx loop-runtime' : loopRuntimeCommand(install),
    timeoutMs: Math.max(...plans.map((plan) => plan.timeoutMs)),
  };
  const crontab = crontabLine(server);
  const systemd = systemdUnits(server);
  const schedules = plans.map((plan) => ({ loop: plan.pattern.id, cadence: plan.cadence.text, cron: cron ?? cronForCadence(plan.cadence, plan.pattern.id) }));
  const json = { path: WORKFLOW_PATH, schedules, stateBranch, workflow, crontab, systemd };

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
  const secrets = [...new Set(plans.flatMap((plan) => ({ 'claude-code': ['ANTHROPIC_API_KEY'], openai: ['OPENAI_API_KEY'] })[plan.backend.name as 'openai'] ?? []))];
  const text = [
    `Wrote ${WORKFLOW_PATH}: ${schedules.map((entry) => `${entry.loop} at "${entry.cron}"`).join(', ')}.`,
    stateBranch ? `State persists on the branch "${stateBranch}" (created by the first run).` : 'No state branch: budgets and attempts start fresh on every run.',
    secrets.length ? `Add these repository secrets: ${secrets.join(', ')}.` : 'No secrets needed for these backends.',
  ].join('\n');
  return { exitCode: ExitCode.ok, json: { ...json, written: true }, text };
}

async function ciSummary({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const file = args[1];
  if (!file) throw new LoopRuntimeError('USAGE', 'ci summary needs the JSON file `run --json` wrote.', { fix: 'run `loop-runtime ci summary result.json`.' });
  const { renderCiSummary } = await import('../../ci/ci-summary.js');
  let output: unknown = null;
  try {
    output = JSON.parse(await readFile(resolve(io.cwd, file), 'utf8'));
  } catch {
    output = null;
  }
  const given = options.exitCode === undefined || options.exitCode === '' ? undefined : Number(options.exitCode);
  const summary = renderCiSummary(output, Number.isInteger(given) ? { exitCode: given! } : {});
  const summaryPath = io.env.GITHUB_STEP_SUMMARY;
  if (summaryPath) await appendFile(summaryPath, `${summary.markdown}\n`, 'utf8');
  const text = [...summary.annotations, ...(summaryPath ? [] : [summary.markdown])].join('\n');
  return { exitCode: summary.exitCode, json: summary, text };
}
