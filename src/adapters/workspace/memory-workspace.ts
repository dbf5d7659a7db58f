/**
 * A workspace kept in memory: a base snapshot plus one overlay of edits per
 * attempt. Used when no git workspace is injected (library use, tests,
 * in-process benchmarks). Its change set is computed from its own files,
 * never from what an agent says it changed.
 */
import type {
  ChangeSet,
  ChangedFile,
  CommitRecord,
  CommitRequest,
  WorkItem,
  Workspace,
  WorkspaceFiles,
  WorkspaceHandle,
  WorkspaceResult,
} from '../../core/ports/index.js';

export interface MemoryWorkspaceOptions {
  /** Files of the base snapshot, by repository-relative path. */
  files?: Record<string, string>;
  /** Reads a base file on demand (e.g. read-only from disk for --dry-run). */
  readBase?: (path: string) => Promise<string | null>;
  baseCommit?: string;
  /** How many finished attempts to remember for `inspect()` (default 1,000): memory stays bounded in long runs. */
  retain?: number;
}

export type MemoryWorkspaceStatus = 'active' | 'committed' | 'rejected' | 'escalated';

interface Attempt {
  handle: WorkspaceHandle;
  edits: Map<string, string | null>;
  status: MemoryWorkspaceStatus;
  keptBecause?: string;
  commit?: CommitRecord & CommitRequest;
}

/** A small stable string hash (FNV-1a, 32 bit) for fake commit ids. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

export function slugify(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'item'
  );
}

export class MemoryWorkspace implements Workspace {
  readonly specificationVersion = 'workspace-v1' as const;
  private readonly base: Map<string, string>;
  private readonly readBase: ((path: string) => Promise<string | null>) | undefined;
  private readonly baseCommit: string;
  private readonly attempts = new Map<string, Attempt>();
  private counter = 0;
  private readonly retain: number;

  constructor(options: MemoryWorkspaceOptions = {}) {
    this.retain = options.retain ?? 1_000;
    this.base = new Map(Object.entries(options.files ?? {}));
    this.readBase = options.readBase;
    this.baseCommit = options.baseCommit ?? '0000000';
  }

  async prepare(request: { tickId: string; patternId: string; item: WorkItem; branchPrefix: string }): Promise<WorkspaceResult<{ handle: WorkspaceHandle }>> {
    const id = `${request.tickId}-${++this.counter}`;
    const handle: WorkspaceHandle = {
      id,
      path: `memory:/${id}`,
      branch: `${request.branchPrefix}${slugify(request.item.key)}`,
      baseCommit: this.baseCommit,
      itemKey: request.item.key,
    };
    this.attempts.set(id, { handle, edits: new Map(), status: 'active' });
    if (this.attempts.size > this.retain) this.forgetOldest();
    return { ok: true, handle };
  }

  files(handle: WorkspaceHandle): WorkspaceFiles {
    const attempt = this.attempt(handle);
    return {
      read: async (path) => (attempt.edits.has(path) ? attempt.edits.get(path)! : this.readBaseFile(path)),
      write: async (path, content) => {
        attempt.edits.set(path, content);
      },
    };
  }

  /** Deletes a file in the attempt (what `git rm` would do in a worktree). */
  remove(handle: WorkspaceHandle, path: string): void {
    this.attempt(handle).edits.set(path, null);
  }

  async changes(handle: WorkspaceHandle): Promise<WorkspaceResult<{ changes: ChangeSet }>> {
    const attempt = this.attempt(handle);
    const files: ChangedFile[] = [];
    const patch: string[] = [];
    for (const [path, content] of [...attempt.edits].sort(([a], [b]) => a.localeCompare(b))) {
      const before = await this.readBaseFile(path);
      if (before === content) continue;
      const status = before === null ? 'added' : content === null ? 'deleted' : 'modified';
      files.push({ path, status, binary: false });
      patch.push(`diff --git a/${path} b/${path}`, before === null ? '--- /dev/null' : `--- a/${path}`, content === null ? '+++ /dev/null' : `+++ b/${path}`);
      for (const line of before?.split('\n') ?? []) patch.push(`-${line}`);
      for (const line of content?.split('\n') ?? []) patch.push(`+${line}`);
    }
    return { ok: true, changes: { files, patch: patch.join('\n') } };
  }

  async commit(handle: WorkspaceHandle, request: CommitRequest): Promise<WorkspaceResult<{ commit: CommitRecord }>> {
    const attempt = this.attempt(handle);
    const sha = fnv1a(`${handle.id}\n${request.message}\n${[...attempt.edits].map(([path, content]) => `${path}=${content}`).join('\n')}`);
    const commit = { sha, branch: handle.branch };
    attempt.status = 'committed';
    attempt.commit = { ...commit, ...request };
    return { ok: true, commit };
  }

  async discard(handle: WorkspaceHandle): Promise<void> {
    const attempt = this.attempts.get(handle.id);
    if (attempt) {
      attempt.status = 'rejected';
      attempt.edits.clear();
    }
  }

  async keep(handle: WorkspaceHandle, reason: string): Promise<void> {
    const attempt = this.attempt(handle);
    attempt.status = 'escalated';
    attempt.keptBecause = reason;
  }

  /** What happened to each attempt, for tests and the dry-run report. */
  inspect(): Array<{ handle: WorkspaceHandle; status: MemoryWorkspaceStatus; edits: Record<string, string | null>; commit?: CommitRecord & CommitRequest }> {
    return [...this.attempts.values()].map((attempt) => ({
      handle: attempt.handle,
      status: attempt.status,
      edits: Object.fromEntries(attempt.edits),
      ...(attempt.commit ? { commit: attempt.commit } : {}),
    }));
  }

  private forgetOldest(): void {
    for (const [id, attempt] of this.attempts) {
      if (this.attempts.size <= this.retain) return;
      if (attempt.status !== 'active') this.attempts.delete(id);
    }
  }

  private attempt(handle: WorkspaceHandle): Attempt {
    const attempt = this.attempts.get(handle.id);
    if (!attempt) throw new Error(`Unknown memory workspace ${handle.id}.`);
    return attempt;
  }

  private async readBaseFile(path: string): Promise<string | null> {
    if (this.base.has(path)) return this.base.get(path)!;
    return this.readBase ? this.readBase(path) : null;
  }
}
