/**
 * What a runner must install before a loop can tick, as workflow steps:
 * loop-runtime itself (the project's own pinned dependency, or a pinned git /
 * tarball spec — never an unpublished registry version), the agent CLI or
 * SDK the loop's backend calls, and bubblewrap when the loop runs
 * verification commands (the verifier refuses to run them unsandboxed) or an
 * agent that runs contained in it (claude-code).
 * Pure: data in, step objects out.
 */

/** How loop-runtime and the project's own dependencies get onto the runner. */
export interface WorkflowInstall {
  /** `project`: the repository depends on loop-runtime (lock file → `npm ci`). `package`: a pinned spec installed beside the checkout. */
  loopRuntime: { kind: 'project'; spec?: string } | { kind: 'package'; spec: string };
  /** The repository's package.json, if it has one: its dependencies are installed first (verification commands need them). */
  project: { lockfile: boolean } | null;
  /** Packages the project already depends on, so the workflow does not install them again (e.g. `openai`). */
  dependencies?: readonly string[];
}

/** What a built-in backend needs on the runner. */
export interface BackendRequirement {
  /** Repository secrets passed as environment variables. */
  secrets: readonly string[];
  /** An agent CLI installed with `npm install --global` (major version pinned to what the backend is tested with). */
  cli?: { spec: string; binary: string };
  /** An SDK the backend imports, installed next to loop-runtime unless the project depends on it. */
  sdk?: { name: string; spec: string };
}

const CLAUDE_CODE: BackendRequirement = { secrets: ['ANTHROPIC_API_KEY'], cli: { spec: '@anthropic-ai/claude-code@2', binary: 'claude' } };

/** Requirements of the built-in backends; a plugin backend (path or package) brings its own. */
export const BACKEND_REQUIREMENTS: Readonly<Record<string, BackendRequirement>> = {
  'claude-code': CLAUDE_CODE,
  claude: CLAUDE_CODE,
  codex: { secrets: ['OPENAI_API_KEY'], cli: { spec: '@openai/codex@0.169', binary: 'codex' } },
  // Both keys: with no model: opencode runs the model of the one that is set (an unset secret arrives empty, which counts as unset).
  opencode: { secrets: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'], cli: { spec: 'opencode-ai@1', binary: 'opencode' } },
  'gemini-cli': { secrets: ['GEMINI_API_KEY'], cli: { spec: '@google/gemini-cli@0.61', binary: 'gemini' } },
  openai: { secrets: ['OPENAI_API_KEY'], sdk: { name: 'openai', spec: 'openai@6' } },
  ollama: { secrets: [] },
  mock: { secrets: [] },
};

/** Where a `package` install of loop-runtime lives on the runner (outside the checkout, so git status stays clean). */
export const PACKAGE_PREFIX = '$RUNNER_TEMP/loop-runtime';

/** Quotes a word for bash unless it is plain. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=#~^-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that runs loop-runtime in the workflow. `npx --no` runs the
 * project's installed copy and never downloads a registry package of that name.
 */
export function loopRuntimeCommand(install: WorkflowInstall): string {
  return install.loopRuntime.kind === 'project' ? 'npx --no loop-runtime' : 'loop-runtime';
}

type Step = Record<string, unknown>;

/** Steps that install the project's dependencies and loop-runtime (shared by every job). */
export function loopRuntimeInstallSteps(install: WorkflowInstall, sdks: readonly string[]): Step[] {
  const steps: Step[] = [];
  const projectCommand = install.project ? (install.project.lockfile ? 'npm ci' : 'npm install') : null;
  if (install.loopRuntime.kind === 'project') {
    const extra = sdks.length ? `\nnpm install --no-save ${sdks.map(shellWord).join(' ')}` : '';
    steps.push({ name: 'Install loop-runtime (project dependency)', run: `${projectCommand ?? 'npm ci'}${extra}` });
    return steps;
  }
  if (projectCommand) steps.push({ name: "Install the project's dependencies", run: projectCommand });
  const packages = [install.loopRuntime.spec, ...sdks].map(shellWord).join(' ');
  steps.push({
    name: 'Install loop-runtime (pinned package)',
    run: [
      `npm install --no-save --no-package-lock --no-audit --no-fund --prefix "${PACKAGE_PREFIX}" ${packages}`,
      `echo "${PACKAGE_PREFIX}/node_modules/.bin" >> "$GITHUB_PATH"`,
    ].join('\n'),
  });
  return steps;
}

/**
 * How the due check runs loop-runtime before anything is installed: `npx` fetches the pinned package alone (the
 * project's lock file's resolved tarball or git URL, or the `--package` spec), not the project's dependencies.
 * null when no pinned spec is known (then the job installs first and `run --due` decides, as before).
 */
export function dueCheckCommand(install: WorkflowInstall): string | null {
  const spec = install.loopRuntime.spec;
  return spec ? `npx --yes --package=${shellWord(spec)} loop-runtime` : null;
}

/** SDK packages the loop's backend imports that the project does not already depend on. */
export function sdksFor(backends: readonly string[], install: WorkflowInstall): string[] {
  const have = new Set(install.dependencies ?? []);
  const specs = backends.map((name) => BACKEND_REQUIREMENTS[name]?.sdk).filter((sdk) => sdk !== undefined && !have.has(sdk.name));
  return [...new Set(specs.map((sdk) => sdk!.spec))];
}

/** The agent CLI step for one loop's backend, if it needs one. */
export function agentCliStep(backend: string): Step | null {
  const cli = BACKEND_REQUIREMENTS[backend]?.cli;
  if (!cli) return null;
  return { name: `Install the agent CLI (${cli.binary})`, run: `npm install --global --no-audit --no-fund ${shellWord(cli.spec)}` };
}

/**
 * Bubblewrap for the verifier's sandbox. Ubuntu 24.04 runners forbid
 * unprivileged user namespaces through AppArmor, which bwrap needs; the
 * sysctl lifts that for this ephemeral runner only.
 */
export function sandboxStep(): Step {
  return {
    name: 'Install bubblewrap (sandbox for the agent and verification commands)',
    run: [
      'sudo apt-get update -qq',
      'sudo apt-get install -y -qq bubblewrap',
      'if [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; fi',
    ].join('\n'),
  };
}
