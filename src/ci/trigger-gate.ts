/**
 * The trigger gate of the Action's `mode: event`: before anything reads an event's text (issue body, comment,
 * pull request title), who triggered it is checked. Allowed only when the actor has write access (admin,
 * maintain, write) through the API, is not a bot unless allowlisted, and the event is not from a fork. Default
 * closed: no token, no actor, an API error or an unknown answer is a skip, with the reason.
 * Reads only the event's structured fields (sender type, the pull request's head repository).
 */
import { Octokit } from '@octokit/rest';

export type TriggerVerdict = { allowed: true; actor: string; permission: string } | { allowed: false; reason: 'no-actor' | 'fork' | 'bot' | 'permission' | 'api-error'; message: string };

export interface TriggerGateInput {
  /** The parsed `$GITHUB_EVENT_PATH`. */
  event: Record<string, unknown>;
  /** `$GITHUB_ACTOR`. */
  actor: string | undefined;
  /** `owner/repo` (`$GITHUB_REPOSITORY`). */
  repository: string | undefined;
  token: string | undefined;
  apiUrl?: string | undefined;
  /** Bot logins allowed to trigger a tick (e.g. `dependabot[bot]`). */
  allowBots?: readonly string[];
  fetch?: typeof globalThis.fetch;
}

const WRITE = new Set(['admin', 'maintain', 'write']);

/**
 * Where the event's code came from: a pull request's head repository, or a `workflow_run`'s (a fork's pull request
 * runs CI in the base repository, and its failure would reach ci-sweeper with the base repository's token).
 */
function headRepository(event: Record<string, unknown>): { fork?: boolean; full_name?: string } | null {
  const pull = event.pull_request as { head?: { repo?: { fork?: boolean; full_name?: string } | null } } | undefined;
  const run = event.workflow_run as { head_repository?: { fork?: boolean; full_name?: string } | null } | undefined;
  return pull?.head?.repo ?? run?.head_repository ?? null;
}

/** Decides whether the event may start a tick. */
export async function checkTrigger(input: TriggerGateInput): Promise<TriggerVerdict> {
  const actor = input.actor?.trim();
  if (!actor || !input.repository) return { allowed: false, reason: 'no-actor', message: 'no GITHUB_ACTOR or GITHUB_REPOSITORY: who triggered this event is unknown' };
  const head = headRepository(input.event);
  if (head && (head.fork === true || (head.full_name !== undefined && head.full_name !== input.repository))) {
    return { allowed: false, reason: 'fork', message: `the ${input.event.workflow_run ? 'workflow run' : 'pull request'} comes from a fork (${head.full_name ?? 'unknown'}); a fork's events never start a tick` };
  }
  const sender = input.event.sender as { type?: string } | undefined;
  const bot = sender?.type === 'Bot' || actor.endsWith('[bot]');
  if (bot && !(input.allowBots ?? []).includes(actor)) {
    return { allowed: false, reason: 'bot', message: `${actor} is a bot not on the allowlist. To fix: add it to the Action's allow-bots input if its events should start ticks` };
  }
  if (!input.token) return { allowed: false, reason: 'api-error', message: 'no token to ask GitHub for the actor\'s permission (GH_TOKEN or GITHUB_TOKEN)' };
  const [owner, repo] = input.repository.split('/');
  const octokit = new Octokit({
    auth: input.token,
    baseUrl: (input.apiUrl ?? 'https://api.github.com').replace(/\/+$/, ''),
    userAgent: 'loop-runtime',
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    request: { fetch: input.fetch ?? globalThis.fetch, retries: 0 },
  });
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner: owner!, repo: repo!, username: actor });
    const permission = String(data.permission);
    if (WRITE.has(permission)) return { allowed: true, actor, permission };
    return { allowed: false, reason: 'permission', message: `${actor} has ${permission} access to ${input.repository}; only write, maintain or admin starts a tick` };
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 404) return { allowed: false, reason: 'permission', message: `${actor} is not a collaborator on ${input.repository}` };
    return { allowed: false, reason: 'api-error', message: `GitHub did not answer the permission check${status ? ` (HTTP ${status})` : ''}: ${error instanceof Error ? error.message : String(error)}` };
  }
}
