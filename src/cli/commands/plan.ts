/**
 * `loop-runtime plan <id> [--level L2] [--backend name]`: compile and show
 * the ExecutionPlan for one loop without running anything. `--json` prints
 * the plan itself, so it can be reviewed, diffed and golden-tested.
 */
import pc from 'picocolors';
import { formatDiagnostic } from '../../core/config/diagnostics.js';
import { LEVELS } from '../../core/config/constants.js';
import type { Level } from '../../core/config/schemas.js';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import { describeBackendChoice, type BackendChoice } from '../../composition/backend-choice.js';
import type { CommandContext, CommandOutput } from '../command.js';
// Static: this module is itself loaded by `import()` (commands/index.ts); an `import()` here cost a facade file.
import { loadProject, resolvePlan } from '../../project/load-project.js';
import { configErrorOutput } from '../config-error-output.js';
import { formatCount } from '../../core/text/format-count.js';

function parseLevel(value: unknown): Level | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const level = String(value).toUpperCase();
  if (!(LEVELS as readonly string[]).includes(level)) {
    throw new LoopRuntimeError('USAGE', `--level ${String(value)} is not an autonomy level.`, { fix: 'use L0, L1, L2 or L3.' });
  }
  return level as Level;
}

const count = (value: number) => formatCount(value);

function duration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${ms / 1000}s`;
}

const onOff = (enabled: boolean) => (enabled ? pc.green('on ') : pc.dim('off'));

/** What the verifier runs, and what happens without evidence (never an approval). */
function verifyLine(plan: ExecutionPlan, runners: readonly string[] = []): string {
  const { verify } = plan.phases;
  const checker = verify.checker ? ' + checker agent (can only lower a verdict)' : '';
  if (verify.commands.length > 0) {
    return [`${verify.commands.map((command) => command.command).join(', ')}${checker}`, ...runners.map((line) => `              ${pc.dim(line)}`)].join('\n');
  }
  return `${pc.yellow('no commands')}${checker}: changes are escalated to a human, never approved — set \`verify:\` in the loop-runtime block`;
}

/** Which agent runs and why; with no choice given, what the plan alone says. */
function backendLine(plan: ExecutionPlan, choice: BackendChoice | undefined): string {
  const model = plan.backend.model ? ` (${plan.backend.model})` : '';
  const candidates = plan.backend.candidates.map((candidate) => candidate.backend).join(', ');
  if (plan.backend.name !== 'auto') return `${plan.backend.name}${model}${choice ? pc.dim(` — ${choice.reason}`) : ''}`;
  if (!choice) return `auto${model}: the first installed of ${candidates || pc.yellow('no agent')}`;
  if (choice.backend === null) return `auto → ${pc.yellow('none installed')}: a real run stops (exit 3). ${choice.reason} To fix: ${choice.fix ?? ''}`;
  return `auto → ${pc.bold(choice.backend)}${model} ${pc.dim(`— ${choice.reason}`)}`;
}

/** Human rendering of a plan: what may run, within what limits, delivered how. */
export function renderPlan(plan: ExecutionPlan, choice?: BackendChoice, runners: readonly string[] = []): string {
  const { phases, budget, delivery } = plan;
  const list = (items: readonly string[]) => (items.length > 0 ? items.join(', ') : pc.dim('none'));
  const lines = [
    `${pc.bold(plan.pattern.name)} (${plan.pattern.id}) — ${plan.pattern.goal}`,
    `  level       ${pc.bold(plan.level)} (from ${plan.levelSource})   risk ${plan.pattern.risk}`,
    `  cadence     ${plan.cadence.text} (every ${duration(plan.cadence.minIntervalMs)}–${duration(plan.cadence.maxIntervalMs)})   timeout ${duration(plan.timeoutMs)}`,
    `  budget      ${count(plan.dailyTokenCap)} tokens/day (${budget.capSource}); report-only from ${Math.round(budget.degradeAtFraction * 100)}%`,
    `              reserve triage ${count(budget.reserve.triage)} · implement ${count(budget.reserve.implement)} · check ${count(budget.reserve.check)}`,
    ...(budget.maxRunsPerDay ? [`  runs/day    at most ${budget.maxRunsPerDay.value} (${budget.maxRunsPerDay.source}); further ticks that UTC day halt before any model call`] : []),
    `  phases      triage ${onOff(phases.triage.enabled)}  workspace ${onOff(phases.workspace.enabled)}  implement ${onOff(phases.implement.enabled)}  verify ${onOff(phases.verify.enabled)}  commit ${onOff(phases.commit.enabled)}  merge ${onOff(phases.merge.enabled && delivery.autoMerge)}${phases.merge.enabled && !delivery.autoMerge ? pc.dim(' (L3 allows it; delivery.autoMerge is off)') : ''}`,
    `  verify      ${verifyLine(plan, runners)}`,
    `  protected   ${list(phases.verify.protectedPaths)}`,
    `  test edits  ${phases.verify.testEdits === 'allow' ? pc.yellow('allowed (the loop changes tests; the base tests still run)') : 'escalated to a human (the base tests run over the change)'}`,
    `  gate        ${plan.gate.source}: ${plan.gate.denylist.length} denylist glob(s), max ${plan.gate.maxFiles ?? 'unlimited'} file(s), auto-merge allowlist ${list(plan.gate.autoMergeAllowlist)}`,
    `  attempts    ${plan.attempts.maxPerItem} per item · stop after the same error ${plan.attempts.sameErrorLimit}× or ${plan.attempts.consecutiveFailureLimit} failures in a row · ${plan.attempts.maxIterations} turns per agent call`,
    `  early exit  probes: ${list(plan.earlyExit.probes.map((probe) => `${probe.name} (\`${probe.command}\`)`))}`,
    `  backend     ${backendLine(plan, choice)}`,
    `  delivery    ${delivery.mode} to ${delivery.remote} on ${delivery.branchPrefix}*${delivery.baseBranch ? ` from ${delivery.baseBranch}` : ''}; draft ${delivery.draft ? 'yes' : 'no'}; auto-merge ${delivery.autoMerge ? pc.yellow('yes') : 'no'}`,
    `  autonomy    ${plan.autonomy ? `${plan.autonomy.action} when acceptance over the last ${plan.autonomy.window} decided proposals < ${Math.round(plan.autonomy.minAcceptance * 100)}%; on a revert: ${plan.autonomy.onRevert}; never promotes on its own` : pc.dim('off (the level changes only by hand)')}`,
    `  files       state ${plan.files.state} · run log ${plan.files.runLog} · ledger ${plan.files.ledger}`,
    `  document    patterns/${plan.pattern.document}`,
  ];
  if (plan.level === 'L0') lines.push('', pc.yellow('  L0 (draft): nothing runs at this level.'));
  return lines.join('\n');
}

/** Handler for `loop-runtime plan <id>`. */
export async function planCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const id = args[0];
  if (!id) throw new LoopRuntimeError('USAGE', 'plan needs a loop id.', { fix: 'run `loop-runtime list` to see the loops, then `loop-runtime plan <id>`.' });
  const level = parseLevel(options.level);
  const backend = typeof options.backend === 'string' && options.backend !== '' ? options.backend : undefined;
  const loaded = await loadProject(io.cwd);
  if (!loaded.ok) {
    return configErrorOutput(loaded.issues);
  }
  const resolved = await resolvePlan(loaded.project, id, { ...(level ? { level } : {}), ...(backend ? { backend } : {}) });
  if (!resolved.ok) {
    return configErrorOutput(resolved.issues);
  }
  const warnings = [...loaded.warnings, ...resolved.warnings];
  const choice = describeBackendChoice(resolved.plan, loaded.project.root, io.env);
  const commands = resolved.plan.phases.verify.commands.map((command) => command.command);
  // Which test runner each verification command starts: loaded only for a plan that has commands (a report-only
  // loop, loop-init's first plan, has none).
  const runners = commands.length ? await describeRunners(loaded.project.root, commands) : [];
  const output: CommandOutput = { exitCode: ExitCode.ok, json: resolved.plan, text: renderPlan(resolved.plan, choice, runners) };
  if (warnings.length > 0) output.stderr = warnings.map((warning) => pc.yellow(`warning: ${formatDiagnostic(warning)}`)).join('\n');
  return output;
}

async function describeRunners(root: string, commands: readonly string[]): Promise<string[]> {
  const { describeVerifyRunners, describeVerifyRunner } = await import('../../project/detect-test-runners.js');
  return (await describeVerifyRunners(root, commands)).map(describeVerifyRunner);
}
