/**
 * The --dry-run workspace: the real git workspace, run in a temporary copy of
 * the repository so the user's repository stays byte-for-byte the same.
 *
 * The copy is made only when a tick reaches the act phase (`git init` and
 * an alternates file, as `git clone --shared --no-checkout` would: it
 * borrows the objects, copies none, checks out nothing) and is removed by
 * `close()`. The base is resolved read-only in the
 * user's repository. Outside a git repository it falls back to `fallback`.
 */
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Clock, Delivery, DeliveryRequest, Workspace, WorkspaceFiles, WorkspaceHandle } from '../../core/ports/index.js';
import { git } from '../git/git-run.js';
import { GitWorkspace, resolveBase, type ResolvedBase } from './git-workspace.js';

export interface DryRunGitWorkspaceOptions {
  root: string;
  patternId: string;
  baseBranch?: string | null;
  clock: Clock;
  /** Used when the root is not a git repository with a commit, or the temporary copy fails. */
  fallback: Workspace;
  /** Told why the fallback is used, so the run can say it did not rehearse with real git. */
  onFallback?: (reason: string) => void;
}

type Prepare = Workspace['prepare'];

export class DryRunGitWorkspace implements Workspace {
  readonly specificationVersion = 'workspace-v1' as const;
  private readonly options: DryRunGitWorkspaceOptions;
  private started: Promise<Workspace> | null = null;
  private copy: string | null = null;

  constructor(options: DryRunGitWorkspaceOptions) {
    this.options = options;
  }

  /** The temporary copy's directory once it exists (for tests and reports). */
  get copyRoot(): string | null {
    return this.copy;
  }

  async recover(): Promise<void> {
    // A copy made just now has nothing to recover from.
    const fresh = this.started === null;
    const inner = await this.inner();
    if (!fresh) await inner.recover?.();
  }

  async prepare(request: Parameters<Prepare>[0]): ReturnType<Prepare> {
    return (await this.inner()).prepare(request);
  }

  files(handle: WorkspaceHandle): WorkspaceFiles {
    const files = this.innerSync().files?.(handle);
    if (!files) throw new Error('The dry-run workspace has no file access.');
    return files;
  }

  async readBase(handle: WorkspaceHandle, path: string): Promise<string | null> {
    return (await this.innerSync().readBase?.(handle, path)) ?? null;
  }

  async withBaseFiles<T>(handle: WorkspaceHandle, paths: readonly string[], run: () => Promise<T>) {
    const inner = this.innerSync();
    if (!inner.withBaseFiles) return { ok: true as const, value: await run() };
    return inner.withBaseFiles(handle, paths, run);
  }

  async dependencyDirs(handle: WorkspaceHandle) {
    return (await this.innerSync().dependencyDirs?.(handle)) ?? [];
  }

  async changes(handle: WorkspaceHandle) {
    return this.innerSync().changes(handle);
  }

  async commit(handle: WorkspaceHandle, request: Parameters<Workspace['commit']>[1]) {
    return this.innerSync().commit(handle, request);
  }

  async discard(handle: WorkspaceHandle): Promise<void> {
    await this.innerSync().discard(handle);
  }

  async keep(handle: WorkspaceHandle, reason: string): Promise<void> {
    await this.innerSync().keep(handle, reason);
  }

  /**
   * Removes the temporary copy. Synchronously: the run is over, nothing waits on the event loop, and the
   * asynchronous removal paid a thread-pool round trip per file of the checkout.
   */
  async close(): Promise<void> {
    if (this.copy) rmSync(this.copy, { recursive: true, force: true });
    this.copy = null;
  }

  private resolved: Workspace | null = null;

  private innerSync(): Workspace {
    if (!this.resolved) throw new Error('The dry-run workspace was used before prepare().');
    return this.resolved;
  }

  private inner(): Promise<Workspace> {
    this.started ??= this.start().then((workspace) => (this.resolved = workspace));
    return this.started;
  }

  private fallBack(reason: string): Workspace {
    this.options.onFallback?.(reason);
    return this.options.fallback;
  }

  private async start(): Promise<Workspace> {
    const root = resolve(this.options.root);
    // The first attempt's base, read (read-only, in the user's repository) while the copy is made rather than after.
    // A named base branch is looked up as a real tick would (resolveBase); without one the base is HEAD's commit,
    // which the probe below reads anyway, so only HEAD's branch is asked besides it (one git process fewer).
    const baseBranch = this.options.baseBranch ?? null;
    let early: Promise<ResolvedBase> | null = baseBranch ? resolveBase(root, baseBranch) : null;
    early?.catch(() => undefined);
    // One read-only probe (rev-parse writes nothing) answers where the objects are, whether HEAD is a commit and,
    // without a base branch named, the branch HEAD is on (`HEAD` when detached); the temporary directory is made
    // meanwhile. A repository without a commit fails the probe (exit 128).
    const [probe, copy] = await Promise.all([
      // (`--verify` takes one revision, so with the branch asked too it is left out and the commit's line checked.)
      git(root).tryRaw(baseBranch ? ['rev-parse', '--git-common-dir', '--verify', '--quiet', 'HEAD^{commit}'] : ['rev-parse', '--git-common-dir', 'HEAD^{commit}', '--symbolic-full-name', 'HEAD']),
      mkdtemp(join(tmpdir(), 'loop-runtime-dry-run-')),
    ]);
    this.copy = copy;
    const [commonDir, head, symbolic] = (probe ?? '').split('\n');
    if (!commonDir || !/^[0-9a-f]{40,64}$/.test(head?.trim() ?? '')) {
      await this.close();
      return this.fallBack(`${root} is not a git repository with a commit`);
    }
    // What resolveBase answers for no base branch: HEAD's commit and the branch it is on (null when detached).
    early ??= Promise.resolve({ commit: head!.trim(), branch: symbolic?.startsWith('refs/heads/') ? symbolic.slice('refs/heads/'.length) : null });
    try {
      await borrowObjects(resolve(root, commonDir), join(copy, 'repo'));
    } catch (error) {
      await this.close();
      return this.fallBack(`the temporary copy failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
    }
    return new GitWorkspace({
      root: join(copy, 'repo'),
      // Inside the temporary copy, so closing it leaves nothing behind in the user's state directory either.
      worktreesDir: join(copy, 'worktrees'),
      patternId: this.options.patternId,
      baseBranch: this.options.baseBranch ?? null,
      clock: this.options.clock,
      resolveBase: (branch) => {
        const first = branch === baseBranch ? early : null;
        early = null;
        return first ?? resolveBase(root, branch);
      },
    });
  }
}

/**
 * An empty repository at `target` that reads every object of the repository whose git directory is `commonDir`
 * through `objects/info/alternates` — what `git clone --shared --no-checkout` sets up, without its transport
 * (a clone spawned git, a shell and upload-pack: ~9 ms; `git init` ~3.5 ms). It copies no object and writes
 * nothing in the user's repository; the base commit, resolved there, is reachable here.
 */
async function borrowObjects(commonDir: string, target: string): Promise<void> {
  await git(dirname(target)).raw(['init', '--quiet', '--template=', target]);
  const info = join(target, '.git', 'objects', 'info');
  await mkdir(info, { recursive: true });
  await writeFile(join(info, 'alternates'), `${join(commonDir, 'objects')}\n`);
}

/** Dry-run delivery: commits stay on a branch in the temporary copy. */
export const localOnlyDelivery: Delivery = {
  specificationVersion: 'delivery-v1',
  async deliver(request: DeliveryRequest) {
    return { ok: true, kind: 'local', branch: request.handle.branch };
  },
};
