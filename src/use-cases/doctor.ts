/**
 * `doctor`: can each configured loop really run here? Per loop: which
 * backend it will use and why, whether that agent's CLI is installed (and its
 * version), for opencode the model it will run, whether a credentials
 * variable is set (by name, never its value);
 * once for all loops: whether the verifier's sandbox works. Every problem
 * comes with its fix. Reads and probes only; writes nothing in the project.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLoopRuntimeError } from '../core/errors.js';
import { agentForBackend } from '../core/plan/agent-tools.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { LoadedProject } from '../project/load-project.js';
import { findAgentBinary } from '../adapters/agents/agent-detection.js';
import { describeBackendChoice } from '../composition/backend-choice.js';
import { chooseOpenCodeModel, configuredModel } from '../adapters/agents/opencode-model.js';
import { credentialVariables, credentialsFix } from './preconditions.js';
import { circuitReader } from './circuit-report.js';
import type { ProjectStores } from '../composition/stores/project-stores.js';
import type { SandboxRunnerFactory } from './sandbox-run.js';

export interface DoctorCheck {
  /** `backend`, `binary`, `model` (opencode), `credentials`, `sandbox`, `halt`, `circuit` or `pause`. */
  check: string;
  ok: boolean;
  detail: string;
  fix?: string;
  /** False for a check whose failure this loop can live with (e.g. no sandbox for a loop that runs no commands). */
  required: boolean;
}

export interface DoctorLoop {
  id: string;
  level: string;
  /** The backend a real tick runs (null: none installed) and why. */
  backend: string | null;
  reason: string;
  checks: DoctorCheck[];
}

export interface DoctorReport {
  root: string;
  loops: DoctorLoop[];
  sandbox: DoctorCheck;
  /** True when every loop has everything it needs. */
  ok: boolean;
}

export interface DoctorOptions {
  env: Record<string, string | undefined>;
  /** Per probe (`--version`, the sandbox trial). Default 10 s. */
  timeoutMs?: number;
  /** The project's store: where halts, pauses and the circuit's attempts are read (every process's). */
  stores?: ProjectStores;
  /** The sandboxed runner for the sandbox trial, from the composition root (`sandboxRunnerFor`). */
  sandboxRunner: SandboxRunnerFactory;
}


export async function runDoctor(project: LoadedProject, options: DoctorOptions): Promise<DoctorReport> {
  const { resolvePlan } = await import('../project/load-project.js');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const sandbox = await sandboxCheck(options.env, timeoutMs, options.sandboxRunner);
  const loops: DoctorLoop[] = [];
  let circuits: ReturnType<typeof circuitReader> | undefined;
  for (const id of project.configuredLoops) {
    const resolved = await resolvePlan(project, id);
    if (!resolved.ok) continue;
    const loop = await doctorLoop(resolved.plan, project.root, sandbox, { ...options, timeoutMs });
    if (options.stores) {
      const stores = options.stores;
      // An unreachable or unreadable store is a finding like any other, not a crash of the report.
      const checks = await stopChecks(resolved.plan, stores, options.env, (circuits ??= circuitReader(stores))).catch((error: unknown): DoctorCheck[] => [
        { check: 'store', ok: false, required: true, detail: `${stores.description}: ${(error instanceof Error ? error.message : String(error)).split(' To fix: ')[0]}`, fix: isLoopRuntimeError(error) && error.fix ? error.fix : 'check the store (LOOP_RUNTIME_DATABASE_URL, or the files under .loop-runtime/).' },
      ]);
      loop.checks.push(...checks);
    }
    loops.push(loop);
  }
  const ok = loops.every((loop) => loop.checks.every((check) => check.ok || !check.required));
  return { root: project.root, loops, sandbox, ok };
}

/**
 * What stops the loop now, read through the store every tick reads: a halt or an open circuit fails (no tick runs
 * until `resume`), a pause warns (someone chose it).
 */
async function stopChecks(plan: ExecutionPlan, stores: ProjectStores, env: Record<string, string | undefined>, circuits: ReturnType<typeof circuitReader>): Promise<DoctorCheck[]> {
  const id = plan.pattern.id;
  const killSwitch = stores.killSwitch(plan, { env });
  const [halt, sources, circuit] = await Promise.all([killSwitch.activeHalt(), killSwitch.sources(), circuits(plan)]);
  const checks: DoctorCheck[] = [];
  const fix = `check the cause, then run loop-runtime resume ${id}.`;
  if (halt) checks.push({ check: 'halt', ok: false, required: true, detail: `halted since ${new Date(halt.at).toISOString()} by tick ${halt.tickId} (${halt.reason}): ${halt.message}`, fix });
  if (circuit) {
    const failures = circuit.failures.slice(0, 3).map((failure) => `${failure.itemKey}: ${failure.error}`).join('; ');
    checks.push({ check: 'circuit', ok: false, required: true, detail: `open: ${circuit.message} Failures: ${failures}`, fix });
  }
  const pauses = sources.filter((source) => source.kind !== 'halt');
  if (pauses.length > 0) {
    const own = pauses.some((source) => source.loop === id);
    checks.push({ check: 'pause', ok: false, required: false, detail: `paused by ${pauses.map((source) => source.source).join('; ')}`, fix: own ? `loop-runtime resume ${id}` : 'loop-runtime resume --all lifts a pause of every loop; the env variable and a state-file line are cleared by hand.' });
  }
  return checks;
}

async function doctorLoop(plan: ExecutionPlan, root: string, sandbox: DoctorCheck, options: Required<Pick<DoctorOptions, 'timeoutMs'>> & DoctorOptions): Promise<DoctorLoop> {
  const choice = describeBackendChoice(plan, root, options.env);
  const checks: DoctorCheck[] = [];
  const base = { id: plan.pattern.id, level: plan.level, backend: choice.backend, reason: choice.reason };
  const runsCommands = plan.phases.verify.enabled && plan.phases.verify.commands.length > 0;
  // Every agent CLI runs inside the same sandbox (refused without it, unless a run opts out below L3).
  const containedAgent = choice.backend !== null && agentForBackend(choice.backend) !== undefined;
  const needsSandbox = runsCommands || containedAgent;
  const why = [runsCommands ? 'verification commands' : null, containedAgent ? `the ${choice.backend} agent` : null].filter(Boolean).join(' and ');
  const sandboxForLoop = { ...sandbox, required: needsSandbox, detail: needsSandbox ? `${sandbox.detail} (for ${why})` : `${sandbox.detail} (this loop runs no verification commands and no agent CLI at ${plan.level})` };
  if (choice.backend === null) {
    checks.push({ check: 'backend', ok: false, detail: choice.reason, ...(choice.fix ? { fix: choice.fix } : {}), required: true }, sandboxForLoop);
    return { ...base, checks };
  }
  checks.push({ check: 'backend', ok: true, detail: `${choice.backend}: ${choice.reason}`, required: true });
  const agent = agentForBackend(choice.backend);
  if (agent) {
    const configured = typeof plan.backend.options['binary'] === 'string' ? plan.backend.options['binary'] : undefined;
    const binary = configured ?? choice.binary ?? findAgentBinary(agent.binary, root, options.env);
    checks.push(binary ? await versionCheck(binary, options.env, options.timeoutMs) : {
      check: 'binary', ok: false, required: true,
      detail: `${agent.binary} is not installed: not in node_modules/.bin or on PATH.`,
      fix: `npm install ${agent.packageName} (in the project, or -g), or set the backend's "binary" setting to its path.`,
    });
  }
  if (choice.backend === 'opencode') checks.push(openCodeModelCheck(plan, options.env));
  const variables = credentialVariables(choice.backend, plan.backend.options);
  if (variables.length > 0) checks.push(credentialsCheck(variables, options.env));
  checks.push(sandboxForLoop);
  if (runsCommands) {
    // Informational: which commands are judged per test, with which reporter, and which by exit code alone.
    const { describeVerifyRunners, describeVerifyRunner } = await import('../project/detect-test-runners.js');
    const runners = await describeVerifyRunners(root, plan.phases.verify.commands.map((command) => command.command));
    checks.push({ check: 'tests', ok: true, required: false, detail: runners.map(describeVerifyRunner).join('; ') });
  }
  return { ...base, checks };
}

/** The model opencode will run: configured, chosen from the key that is set, or none (the tick is refused). */
function openCodeModelCheck(plan: ExecutionPlan, env: Record<string, string | undefined>): DoctorCheck {
  const model = chooseOpenCodeModel(configuredModel(plan.backend), env);
  if (!model.ok) return { check: 'model', ok: false, required: true, detail: model.message, fix: model.fix };
  return { check: 'model', ok: true, required: true, detail: model.from === 'key' ? model.reason : `model ${model.model} (configured)` };
}

function credentialsCheck(variables: readonly string[], env: Record<string, string | undefined>): DoctorCheck {
  const set = variables.find((name) => (env[name] ?? '') !== '');
  if (set) return { check: 'credentials', ok: true, detail: `${set} is set`, required: true };
  return {
    check: 'credentials', ok: false, required: true,
    detail: `none of ${variables.join(', ')} is set`,
    fix: credentialsFix(variables),
  };
}

/** `<binary> --version` with a time limit: installed and answering. */
function versionCheck(binary: string, env: Record<string, string | undefined>, timeoutMs: number): Promise<DoctorCheck> {
  return new Promise((resolve) => {
    // Only what a CLI needs to start: no credentials reach a version probe.
    const probeEnv = Object.fromEntries(['PATH', 'HOME', 'LANG'].flatMap((name) => (env[name] !== undefined ? [[name, env[name]]] : [])));
    execFile(binary, ['--version'], { env: probeEnv, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 }, (error, stdout, stderr) => {
      const firstLine = `${stdout}`.trim().split('\n')[0] ?? '';
      if (!error && firstLine !== '') {
        resolve({ check: 'binary', ok: true, detail: `${binary} (${firstLine})`, required: true });
        return;
      }
      const why = error && 'killed' in error && error.killed ? `no answer within ${timeoutMs} ms` : (`${stderr}`.trim().split('\n')[0] || error?.message || 'no version printed');
      resolve({
        check: 'binary', ok: false, required: true,
        detail: `${binary} is installed but \`--version\` failed: ${why}`,
        fix: `run \`${binary} --version\` yourself to see why; reinstall it if it is broken.`,
      });
    });
  });
}

/** A trivial `true` through the same runner factory the verifier uses, in a scratch directory. */
export async function sandboxCheck(env: Record<string, string | undefined>, timeoutMs: number, runnerFor: SandboxRunnerFactory): Promise<DoctorCheck> {
  const scratch = await mkdtemp(join(tmpdir(), 'loop-runtime-doctor-'));
  try {
    const runner = await runnerFor({ level: 'L3', allowUnsandboxed: false, log: () => {}, env });
    const evidence = await runner.run({ command: 'true', timeoutMs }, { cwd: scratch, timeoutMs });
    if (evidence.exitCode === 0) return { check: 'sandbox', ok: true, detail: `${runner.isolation} runs commands`, required: true };
    return {
      check: 'sandbox', ok: false, required: true,
      detail: `${runner.isolation} could not run \`true\` (exit ${String(evidence.exitCode)}${evidence.signal ? `, ${evidence.signal}` : ''}): ${evidence.output.trim().split('\n').slice(-1)[0] ?? ''}`,
      fix: 'check that unprivileged user namespaces are enabled (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0).',
    };
  } catch (error) {
    const fix = isLoopRuntimeError(error) ? error.fix : undefined;
    const message = error instanceof Error ? error.message : String(error);
    return { check: 'sandbox', ok: false, required: true, detail: fix ? message.slice(0, message.indexOf(' To fix:')) || message : message, ...(fix ? { fix } : {}) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
