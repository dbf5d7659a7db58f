/**
 * Cheap preconditions of a tick, checked before its first model call (and by
 * `validate` and `--dry-run`): what the plan will need that a config file
 * cannot promise. A loop that acts (L2+) needs a git repository with at least
 * one commit; one that pushes needs its remote; one that opens pull requests
 * needs a GitHub token or an authenticated `gh`; a configured CLI agent needs
 * its binary and one of its credentials variables. Reads only: `git rev-parse`,
 * `git remote get-url`, a PATH lookup, `gh auth token` — no network, no model.
 *
 * The verifier's sandbox is not probed here: a real tick builds its runner
 * before the first model call and stops with `SANDBOX_UNAVAILABLE` (exit 5,
 * also recorded as a failed tick); `validate` adds `doctor`'s sandbox probe.
 */
import { LoopRuntimeError } from '../core/errors.js';
import type { Diagnostic } from '../core/config/diagnostics.js';
import { agentForBackend } from '../core/plan/agent-tools.js';
import { AUTO_BACKEND, type ExecutionPlan } from '../core/plan/execution-plan.js';
import { findAgentBinary } from '../adapters/agents/agent-detection.js';
import { chooseOpenCodeModel, configuredModel } from '../adapters/agents/opencode-model.js';

export type PreconditionCheck = 'git-repository' | 'git-commit' | 'delivery-remote' | 'github-auth' | 'backend-binary' | 'backend-credentials' | 'backend-model';

/** One unmet precondition: what is missing and the fix. */
export interface PreconditionProblem {
  check: PreconditionCheck;
  message: string;
  fix: string;
}

export interface PreconditionOptions {
  env: Record<string, string | undefined>;
  /**
   * A rehearsal: it runs the mock (no backend checks), and outside a git
   * repository it rehearses on an in-memory copy — but a repository with no
   * commit, or missing delivery credentials, are still reported.
   */
  dryRun: boolean;
  /** The caller injected the backend (tests, embedding): its binary and credentials are the caller's business. */
  backendInjected?: boolean;
  /**
   * The repository's answers, shared by every loop checked in one pass (`validate`, `doctor`): git and gh are asked
   * once per repository, not once per loop. Default: asked afresh.
   */
  repository?: RepositoryProbe;
}

/** What preconditions ask the repository and the machine; each question is asked once per probe. */
export interface RepositoryProbe {
  /** `git rev-parse --git-dir` and the HEAD commit (null when absent). */
  gitState(): Promise<{ repository: string | null; head: string | null }>;
  remoteUrl(remote: string): Promise<string | null>;
  gitHubAuthenticated(): Promise<boolean>;
}

/**
 * @example
 * ```ts
 * const repository = repositoryProbe('/repo', process.env);
 * for (const plan of plans) await checkPreconditions('/repo', plan, { env: process.env, dryRun: false, repository });
 * ```
 */
export function repositoryProbe(root: string, env: Record<string, string | undefined>): RepositoryProbe {
  let state: Promise<{ repository: string | null; head: string | null }> | null = null;
  const remotes = new Map<string, Promise<string | null>>();
  let authenticated: Promise<boolean> | null = null;
  // The git runner loads only for a loop that acts: `validate` of report-only loops spawns nothing.
  const runner = async () => (await import('../adapters/git/git-run.js')).git(root);
  return {
    gitState: () =>
      (state ??= (async () => {
        const git = await runner();
        // One process answers both in a repository with a commit (every tick's case): the git directory's line, then
        // HEAD's. Only when it fails is the git directory asked alone, to tell no repository from no commit.
        const both = await git.tryRaw(['rev-parse', '--git-dir', '--verify', '--quiet', 'HEAD^{commit}']);
        if (both !== null) {
          const lines = both.trimEnd().split('\n');
          const head = lines.pop() ?? '';
          return { repository: `${lines.join('\n')}\n`, head: `${head}\n` };
        }
        return { repository: await git.tryRaw(['rev-parse', '--git-dir']), head: null };
      })()),
    remoteUrl: (remote) => {
      let url = remotes.get(remote);
      if (!url) remotes.set(remote, (url = runner().then((git) => git.tryRaw(['remote', 'get-url', remote]))));
      return url;
    },
    gitHubAuthenticated: () => (authenticated ??= gitHubAuthenticated(root, env)),
  };
}

/** Backends that need a key but are not CLI agents. */
const SDK_CREDENTIALS: Readonly<Record<string, readonly string[]>> = { openai: ['OPENAI_API_KEY'] };

/**
 * The variables one of which must hold the backend's key: the `apiKeyEnv`
 * setting, else the agent's own (claude-code: ANTHROPIC_API_KEY or
 * CLAUDE_CODE_OAUTH_TOKEN), else the SDK's. Shared with `doctor`.
 *
 * @example
 * ```ts
 * credentialVariables('codex', {}); // → ['OPENAI_API_KEY']
 * ```
 */
export function credentialVariables(backend: string, options: Record<string, unknown>): readonly string[] {
  const keyVariable = typeof options['apiKeyEnv'] === 'string' ? options['apiKeyEnv'] : undefined;
  return keyVariable ? [keyVariable] : (agentForBackend(backend)?.credentials ?? SDK_CREDENTIALS[backend] ?? []);
}

/**
 * How to provide one of `variables`. Claude Code runs with a HOME of its own,
 * so a `claude /login` session never reaches it: a subscription user needs
 * the long-lived token `claude setup-token` prints. Shared with `doctor`.
 *
 * @example
 * ```ts
 * credentialsFix(['OPENAI_API_KEY']); // → 'export OPENAI_API_KEY=<your key> where loop-runtime runs (in CI: a repository secret).'
 * ```
 */
export function credentialsFix(variables: readonly string[]): string {
  const key = `export ${variables[0]}=<your key> where loop-runtime runs (in CI: a repository secret).`;
  if (!variables.includes('CLAUDE_CODE_OAUTH_TOKEN')) return key;
  return `${key} With a Claude subscription instead of a key: run \`claude setup-token\` and export the token it prints as CLAUDE_CODE_OAUTH_TOKEN (the agent runs with its own HOME, so a \`claude /login\` session is not used).`;
}

/**
 * Every unmet precondition of one loop's plan, in the order a tick meets
 * them. An empty list: the tick may start.
 *
 * @example
 * ```ts
 * await checkPreconditions('/repo', plan, { env: process.env, dryRun: false });
 * // → [{ check: 'git-commit', message: '/repo is a git repository with no commit …', fix: 'commit something first …' }]
 * ```
 */
export async function checkPreconditions(root: string, plan: ExecutionPlan, options: PreconditionOptions): Promise<PreconditionProblem[]> {
  const problems: PreconditionProblem[] = [];
  const acts = plan.phases.triage.enabled && plan.phases.workspace.enabled && plan.phases.implement.enabled;
  const probe = options.repository ?? repositoryProbe(root, options.env);
  if (acts) {
    const { repository, head } = await probe.gitState();
    if (repository === null) {
      // A dry run outside a repository rehearses on an in-memory copy and says so; a real tick cannot make a worktree.
      if (!options.dryRun) {
        problems.push({ check: 'git-repository', message: `${root} is not a git repository, and ${plan.pattern.id} at ${plan.level} works in git worktrees.`, fix: 'run it in a git repository (`git init` and a first commit), or lower the loop to L1 (report only).' });
      }
    } else if (!head?.trim()) {
      problems.push({ check: 'git-commit', message: `${root} is a git repository with no commit, so there is no base for ${plan.pattern.id}'s worktree and nothing a change could be committed on.`, fix: 'make a first commit (`git add -A && git commit -m "initial"`), then run the loop again.' });
    }
    if (plan.phases.commit.enabled && plan.delivery.mode !== 'local' && repository !== null) problems.push(...(await deliveryProblems(plan, probe)));
  }
  if (!options.dryRun && !options.backendInjected && plan.phases.triage.enabled) problems.push(...backendProblems(root, plan, options.env));
  return problems;
}

async function deliveryProblems(plan: ExecutionPlan, probe: RepositoryProbe): Promise<PreconditionProblem[]> {
  const { mode, remote } = plan.delivery;
  const problems: PreconditionProblem[] = [];
  const url = await probe.remoteUrl(remote);
  if (url === null) {
    problems.push({ check: 'delivery-remote', message: `${plan.pattern.id} delivers by ${mode}, but the repository has no remote named "${remote}".`, fix: `add it (\`git remote add ${remote} <url>\`), set delivery.remote to an existing remote, or use delivery.mode: local.` });
  }
  if (mode === 'pull-request' && !(await probe.gitHubAuthenticated())) {
    problems.push({
      check: 'github-auth',
      message: `${plan.pattern.id} opens pull requests, but neither GITHUB_TOKEN nor GH_TOKEN is set and no authenticated gh CLI is on PATH.`,
      fix: 'export GITHUB_TOKEN (in GitHub Actions: `GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}` with pull-requests: write), or install gh and run `gh auth login`, or use delivery.mode: push.',
    });
  }
  return problems;
}

/** What delivery itself uses: gh on PATH (authenticated), else a token for the REST API. */
async function gitHubAuthenticated(root: string, env: Record<string, string | undefined>): Promise<boolean> {
  if ((env.GITHUB_TOKEN ?? env.GH_TOKEN ?? '') !== '') return true;
  const [{ findExecutable }, { execa }] = await Promise.all([import('../adapters/command-runner/sandbox-host.js'), import('execa')]);
  const gh = await findExecutable('gh', env);
  if (!gh) return false;
  // `gh auth token` answers from gh's own config, without the network; its output (the token) is discarded.
  const probe = await execa(gh, ['auth', 'token'], { cwd: root, env: { ...env, GH_PROMPT_DISABLED: '1' }, extendEnv: false, reject: false, timeout: 10_000, stdin: 'ignore' });
  return probe.exitCode === 0;
}

function backendProblems(root: string, plan: ExecutionPlan, env: Record<string, string | undefined>): PreconditionProblem[] {
  const name = plan.backend.name;
  // `auto` is resolved (or refused with BACKEND_NOT_FOUND) before the lease; the mock needs nothing.
  if (name === AUTO_BACKEND || name === 'mock') return [];
  const problems: PreconditionProblem[] = [];
  const agent = agentForBackend(name);
  if (agent) {
    const configured = typeof plan.backend.options['binary'] === 'string' ? plan.backend.options['binary'] : undefined;
    if (!configured && !findAgentBinary(agent.binary, root, env)) {
      problems.push({ check: 'backend-binary', message: `${plan.pattern.id} runs ${name}, but ${agent.binary} is not in node_modules/.bin or on PATH.`, fix: `npm install ${agent.packageName} (in the project, or -g), set the backend's "binary" setting to its path, or run with --backend mock to rehearse.` });
    }
  }
  if (name === 'opencode') {
    // Without a model, opencode would fall back to its own default, possibly a hosted model of its maker: the
    // repository's code would go to an endpoint the loop never named. The same choice as the backend's (backend-choice.ts).
    const model = chooseOpenCodeModel(configuredModel(plan.backend), env);
    if (!model.ok) problems.push({ check: 'backend-model', message: `${plan.pattern.id} runs opencode, but ${model.message}`, fix: model.fix });
  }
  const variables = credentialVariables(name, plan.backend.options);
  // A key given in the backend's settings (e.g. `apiKey` for a local OpenAI-compatible server) needs no variable.
  const keyInSettings = typeof plan.backend.options['apiKey'] === 'string' && plan.backend.options['apiKey'] !== '';
  if (!keyInSettings && variables.length > 0 && !variables.some((variable) => (env[variable] ?? '') !== '')) {
    problems.push({ check: 'backend-credentials', message: `${plan.pattern.id} runs ${name}, but none of ${variables.join(', ')} is set.`, fix: credentialsFix(variables) });
  }
  return problems;
}

/**
 * The error a tick stops with when preconditions fail: `PRECONDITION_FAILED`
 * (exit 3), every problem named with its fix.
 */
export function preconditionError(plan: ExecutionPlan, problems: readonly PreconditionProblem[]): LoopRuntimeError {
  const what = problems.map((problem) => problem.message).join(' ');
  const fix = problems.map((problem) => problem.fix).join(' Then: ');
  return new LoopRuntimeError('PRECONDITION_FAILED', `${plan.pattern.id} cannot start; no model was called: ${what}`, { fix, detail: { problems } });
}

/** The same problems as `validate` diagnostics (warnings: the environment `validate` runs in may not be where loops run). */
export function preconditionDiagnostics(file: string, problems: readonly PreconditionProblem[]): Diagnostic[] {
  return problems.map((problem) => ({ severity: 'warning', file, line: 0, column: 0, path: '', message: problem.message, fix: problem.fix, code: `PRECONDITION_${problem.check.toUpperCase().replace(/-/g, '_')}` }));
}
