/** The GitHub client over the `gh` CLI (uses the user's `gh auth login`). */
import { apiFailure, type GitHubClient, type GitHubClientOptions } from './delivery-github-types.js';

/** gh paginates up to `--limit`; a count at the limit is a lower bound, which still enforces any smaller cap. */
const LIST_LIMIT = '1000';

export function ghClient(gh: string, options: GitHubClientOptions): GitHubClient {
  // execa loads with the first gh call, not with the runtime (most ticks never deliver through gh).
  const run = async (args: string[], input?: string) =>
    (await import('execa')).execa(gh, args, { cwd: options.root, env: { ...options.env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1' }, extendEnv: false, reject: false, timeout: 120_000, ...(input !== undefined ? { input } : {}) });
  return {
    via: 'gh',
    async countOpen(prefix) {
      const result = await run(['pr', 'list', '--state', 'open', '--limit', LIST_LIMIT, '--json', 'headRefName']);
      if (result.exitCode !== 0) return null;
      try {
        const rows = JSON.parse(String(result.stdout)) as Array<{ headRefName?: string }>;
        return rows.filter((row) => row.headRefName?.startsWith(prefix)).length;
      } catch {
        return null;
      }
    },
    async findPullRequest(branch) {
      const result = await run(['pr', 'list', '--head', branch, '--state', 'all', '--limit', '1', '--json', 'url,number,state']);
      const failed = () => apiFailure(`gh pr list --head ${branch} failed (exit ${result.exitCode ?? result.signal}): ${String(result.stderr).trim().slice(-500)}`, { exitCode: result.exitCode }, true);
      if (result.exitCode !== 0) return failed();
      try {
        const rows = JSON.parse(String(result.stdout)) as Array<{ url?: string; number?: number; state?: string }>;
        const row = rows.find((candidate) => typeof candidate.url === 'string');
        if (!row?.url) return { ok: true, pullRequest: null };
        const state = row.state?.toLowerCase() === 'merged' ? 'merged' : row.state?.toLowerCase() === 'closed' ? 'closed' : 'open';
        return { ok: true, pullRequest: { url: row.url, number: row.number ?? null, state } };
      } catch {
        return failed();
      }
    },
    async create(input) {
      const args = ['pr', 'create', '--head', input.head, '--base', input.base, '--title', input.title, '--body-file', '-'];
      if (input.draft) args.push('--draft');
      const result = await run(args, input.body);
      const url = String(result.stdout).split('\n').map((line) => line.trim()).reverse().find((line) => /^https?:\/\//.test(line));
      if (result.exitCode !== 0 || !url) {
        return apiFailure(`gh pr create failed (exit ${result.exitCode ?? result.signal}): ${String(result.stderr).trim().slice(-500)}`, { exitCode: result.exitCode });
      }
      const number = Number(/\/pull\/(\d+)/.exec(url)?.[1]);
      return { ok: true, url, number: Number.isFinite(number) ? number : null };
    },
    async merge(url) {
      const result = await run(['pr', 'merge', url, '--auto', '--squash']);
      if (result.exitCode !== 0) return apiFailure(`gh pr merge failed (exit ${result.exitCode}): ${String(result.stderr).trim().slice(-500)}`, { exitCode: result.exitCode });
      return { ok: true };
    },
  };
}
