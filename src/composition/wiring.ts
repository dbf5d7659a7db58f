/**
 * The adapters every entry point shares, built in one place so that what
 * protects one path protects all of them: a tick, `run --due`, `approve`,
 * `reject` and anything later (a server) get the same redacting workspace,
 * the same redacting delivery and the same redactor for what they record.
 *
 * Only the composition root (`create-runtime.ts`) and the runtime facade
 * (`runtime.ts`) call these; commands never construct adapters themselves.
 */
import type { Clock, Delivery, Workspace } from '../core/ports/index.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { GitDelivery, GitDeliveryOptions } from '../adapters/delivery/git-delivery.js';
import type { DeliveryLedgerStore } from '../adapters/delivery/delivery-flow.js';
import type { OutcomeStore } from '../adapters/outcomes/outcome-store.js';
import { GitWorkspace, type GitWorkspaceOptions } from '../adapters/workspace/git-workspace.js';
import { LEASE_MARGIN_MS } from '../adapters/leases/file-item-leases.js';

import type { Redact } from '../adapters/redaction/redaction.js';

export { prepareRedaction, redactorFor, type Redact } from '../adapters/redaction/redaction.js';

/** A deep copy of plain JSON data with every string value redacted. */
export function redactStrings<T>(value: T, redact: Redact): T {
  return JSON.parse(JSON.stringify(value, (_key, entry: unknown) => (typeof entry === 'string' ? redact(entry) : entry))) as T;
}

export interface GitWiring {
  root: string;
  clock: Clock;
  env: Record<string, string | undefined>;
  redact: Redact;
  /** LOOP.md's `worktreesDir` setting; default: the state directory (worktrees-location.ts). */
  worktreesDir?: string | null;
  /** The fleet's shared delivery ledger (Postgres store); default the file beside the repository. */
  deliveryLedger?: DeliveryLedgerStore | undefined;
  /** The project's shared outcome lines (`ProjectStores.outcomes()`): a delivery's one-open-proposal rule reads them. */
  outcomes?: OutcomeStore;
}

/** The loop's git worktree workspace, redacting what it writes into git and its manifest. */
export function gitWorkspaceFor(wiring: GitWiring, patternId: string, baseBranch: string | null): Workspace {
  return redactingWorkspace(new GitWorkspace({ root: wiring.root, patternId, baseBranch, clock: wiring.clock, worktreesDir: wiring.worktreesDir ?? null }), wiring.redact);
}

/** The loop's delivery (push, pull request, merge), redacting what it sends to a remote and what it reports back. */
export function gitDeliveryFor(wiring: GitWiring & { outcomes: OutcomeStore }, plan: ExecutionPlan): Delivery {
  const trackedProposals = async () => {
    // Outcome tracking (synced at the start of every real tick): merged, closed or reverted changes are no longer
    // open proposals; open ones are, local branches included.
    // The store every checkout and worker shares, so a proposal open anywhere counts here.
    const { changes } = await wiring.outcomes.history();
    return {
      settledCommits: new Set(changes.filter((change) => change.state !== 'open').map((change) => change.proposal.commit)),
      open: changes.filter((change) => change.state === 'open').map((change) => ({ pattern: change.proposal.pattern, itemKey: change.proposal.itemKey })),
    };
  };
  const options: GitDeliveryOptions = { root: wiring.root, worktreesDir: wiring.worktreesDir ?? null, delivery: plan.delivery, clock: wiring.clock, env: wiring.env, pendingTimeoutMs: plan.timeoutMs + LEASE_MARGIN_MS, trackedProposals, redact: wiring.redact, ...(wiring.deliveryLedger ? { ledger: wiring.deliveryLedger } : {}) };
  return redactingDelivery(lazyGitDelivery(options), wiring.redact);
}

/**
 * A git delivery whose module (push, pull requests, the delivery ledger and its schema) loads on its first call:
 * a tick that delivers nothing — a dry run, a tick that finds no work — never loads it.
 */
function lazyGitDelivery(options: GitDeliveryOptions): Delivery {
  let opening: Promise<GitDelivery> | null = null;
  const open = () => (opening ??= bareGitDelivery(options));
  return {
    specificationVersion: 'delivery-v1',
    deliver: async (request) => (await open()).deliver(request),
    openProposals: async (patternId) => (await open()).openProposals(patternId),
  };
}

/**
 * Redacts what the workspace writes into git and its manifest: commit
 * messages (they quote the item, the agent's summary and the verification
 * commands), the reason an escalated worktree is kept, and failure messages
 * (git's stderr can quote a remote URL with a token).
 */
export function redactingWorkspace(workspace: Workspace, redact: Redact): Workspace {
  const failure = <T extends { ok: boolean }>(result: T): T => (result.ok ? result : redactStrings(result, redact));
  const redacting: Workspace = {
    specificationVersion: workspace.specificationVersion,
    prepare: async (request) => failure(await workspace.prepare(request)),
    changes: async (handle) => failure(await workspace.changes(handle)),
    commit: async (handle, request) =>
      failure(
        await workspace.commit(handle, {
          ...request,
          message: redact(request.message),
          trailers: Object.fromEntries(Object.entries(request.trailers).map(([name, value]) => [name, redact(value)])),
        }),
      ),
    discard: (handle) => workspace.discard(handle),
    keep: (handle, reason) => workspace.keep(handle, redact(reason)),
  };
  if (workspace.recover) redacting.recover = () => workspace.recover!();
  if (workspace.files) redacting.files = (handle) => workspace.files!(handle);
  if (workspace.readBase) redacting.readBase = (handle, path) => workspace.readBase!(handle, path);
  if (workspace.withBaseFiles) redacting.withBaseFiles = async (handle, paths, run) => failure(await workspace.withBaseFiles!(handle, paths, run));
  if (workspace.dependencyDirs) redacting.dependencyDirs = (handle) => workspace.dependencyDirs!(handle);
  return redacting;
}

/** Redacts what delivery writes to a remote (PR title and body) and the failure it reports (git/gh stderr). */
export function redactingDelivery(delivery: Delivery, redact: Redact): Delivery {
  const redacting: Delivery = {
    specificationVersion: delivery.specificationVersion,
    deliver: async (request) => {
      const result = await delivery.deliver({ ...request, title: redact(request.title), body: redact(request.body) });
      return result.ok ? result : redactStrings(result, redact);
    },
  };
  if (delivery.openProposals) redacting.openProposals = (patternId) => delivery.openProposals!(patternId);
  return redacting;
}

/** A bare git workspace (no redaction): re-creating a kept change's worktree on another worker's disk. */
export function bareGitWorkspace(options: GitWorkspaceOptions): GitWorkspace {
  return new GitWorkspace(options);
}

/** A bare git delivery (no redaction): its ledger operations outside a tick (`forgetFailed`). */
export async function bareGitDelivery(options: GitDeliveryOptions): Promise<GitDelivery> {
  const { GitDelivery } = await import('../adapters/delivery/git-delivery.js');
  return new GitDelivery(options);
}
