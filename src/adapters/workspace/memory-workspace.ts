/**
 * A workspace kept in memory: a base snapshot plus one overlay of edits per
 * attempt. Used when no git workspace is injected (library use, tests,
 * in-process benchmarks, the dry-run fallback). Its change set is computed
 * from its own files, never from what an agent says it changed, and its patch
 * is a real git-style unified diff, so the anti-gaming checks see every line.
 */
import { LoopRuntimeError } from '../../core/errors.js';
import type {
  BaselineCache,
  ChangeSet,
  CommitRecord,
  CommitRequest,
  Workspace,
  WorkspaceFiles,
  WorkspaceHandle,
  WorkspaceResult,
} from '../../core/ports/index.js';
import { comparePaths } from '../../core/workspace/git-diff-parse.js';
import { buildChangeSet, fnv1a, movedSince, type FileVersions } from './memory-change-set.js';
import { AttemptOrder } from './memory-attempt-order.js';
import { BranchNames } from './memory-branch-name.js';
import { memoByString } from '../../core/text/memo-by-string.js';
import { flatText } from '../../core/text/flat-text.js';
import { normalizeWorkspacePath as checkedPath } from './workspace-path.js';

/** The shape check, remembered per path (a tick reads and writes the same few); a refused path throws every time, never cached. */
const normalizeWorkspacePath = memoByString(checkedPath);

export interface MemoryWorkspaceOptions {
  /** Files of the base snapshot, by repository-relative path. */
  files?: Record<string, string>;
  /** Reads a base file on demand (e.g. read-only from disk for --dry-run). */
  readBase?: (path: string) => Promise<string | null>;
  baseCommit?: string;
  /**
   * Attempts remembered for `inspect()` (default 100, oldest finished first, an active one never): bounded memory. Not
   * 1,000 (until 2026-11-28): kept that long, attempts die in the old generation, ~10% of a mock tick's CPU (build.md).
   */
  retain?: number;
  /** Patch text cap in characters (default 200 000), applied by whole files as the git workspace does. */
  patchLimit?: number;
  /** Remember base results across ticks (the `baselineCache` capability; off by default: scripted runners count runs). */
  cacheBaselines?: boolean;
  /**
   * Puts a base's inline tests into a changed source file (`withBaseTestItems` from rust-inline-tests.ts, which
   * needs Node: this twin stays pure, so it is passed in). Without it, `withBaseFiles` with `testItemsOf` fails.
   */
  restoreTestItems?: (base: string, change: string) => Promise<string>;
}

/** A commit of the memory workspace: the request, and each committed path's new content (`null`: deleted). */
export type MemoryCommit = CommitRecord & CommitRequest & { files: Record<string, string | null> };

export type MemoryWorkspaceStatus = 'active' | 'committed' | 'rejected' | 'escalated';

interface Attempt {
  handle: WorkspaceHandle;
  edits: Map<string, string | null>;
  status: MemoryWorkspaceStatus;
  keptBecause: string | undefined;
  /**
   * What the last `changes()` reported, sorted by path; `commit` holds exactly these `after` contents. The
   * versions list itself (no Map built from it): a finished attempt is kept for `inspect()`, so its size is paid on
   * every tick of a long run.
   */
  reviewed: readonly FileVersions[] | undefined;
  /** Counts writes to `edits`: equal to `reviewedAt`, nothing moved since `changes()` (no second diff to prove it). */
  revision: number;
  reviewedAt: number | undefined;
  commit: MemoryCommit | undefined;
}

function conflict(message: string): WorkspaceResult<never> {
  return { ok: false, reason: 'conflict', message: `${message} To fix: call changes() again so the gate checks what is there now.`, retryable: false };
}

export class MemoryWorkspace implements Workspace {
  readonly specificationVersion = 'workspace-v1' as const;
  private readonly base: Map<string, string>;
  private readonly readBaseOption: ((path: string) => Promise<string | null>) | undefined;
  private readonly baseCommit: string;
  private readonly restoreTestItems: MemoryWorkspaceOptions['restoreTestItems'];
  private readonly attempts = new Map<string, Attempt>();
  private readonly order = new AttemptOrder();
  private readonly baselines = new Map<string, unknown>();
  private counter = 0;
  private readonly branches = new BranchNames();
  private readonly retain: number;
  private readonly patchLimit: number;

  constructor(options: MemoryWorkspaceOptions = {}) {
    this.retain = options.retain ?? 100;
    this.patchLimit = options.patchLimit ?? 200_000;
    this.base = new Map(Object.entries(options.files ?? {}));
    this.readBaseOption = options.readBase;
    this.baseCommit = options.baseCommit ?? '0000000';
    this.restoreTestItems = options.restoreTestItems;
    if (options.cacheBaselines) {
      this.baselineCache = (handle) => {
        this.attempt(handle);
        return {
          read: async (key) => JSON.parse(JSON.stringify(this.baselines.get(key) ?? null)) as unknown,
          write: async (key, value) => {
            this.baselines.set(key, JSON.parse(JSON.stringify(value ?? null)) as unknown);
          },
        };
      };
    }
  }

  async prepare(request: Parameters<Workspace['prepare']>[0]): Promise<WorkspaceResult<{ handle: WorkspaceHandle }>> {
    // Each one string (flatText), not a tree of joins: kept with the attempt, and the path by every command run.
    const id = flatText`${request.tickId}-${++this.counter}`;
    const handle: WorkspaceHandle = {
      id,
      path: flatText`memory:/${id}`,
      branch: this.branches.of(request.branchPrefix, request.item.key),
      baseCommit: this.baseCommit,
      itemKey: request.item.key,
    };
    // Every key from the start, in one literal: an attempt kept for `inspect()` (a hundred of them) holds its
    // fields in the object itself, with no second array for keys added later; nothing is deleted (a delete would
    // turn it into a dictionary).
    this.attempts.set(id, { handle, edits: new Map(), status: 'active', keptBecause: undefined, reviewed: undefined, revision: 0, reviewedAt: undefined, commit: undefined });
    this.order.add(id);
    if (this.attempts.size > this.retain) this.order.forgetOldest(this.attempts, this.retain);
    return { ok: true, handle };
  }

  /** Confined like the git workspace's files: the same paths are refused, by a thrown `LoopRuntimeError`. */
  files(handle: WorkspaceHandle): Required<WorkspaceFiles> {
    const attempt = this.attempt(handle);
    return {
      read: async (path) => {
        const key = normalizeWorkspacePath(path);
        if (attempt.edits.has(key)) return attempt.edits.get(key)!;
        const base = this.baseText(key);
        // Awaited only when the base is read from elsewhere; a promise returned from an async function takes two more hops.
        return typeof base === 'object' && base !== null ? await base : base;
      },
      write: async (path, content) => {
        attempt.edits.set(normalizeWorkspacePath(path), content);
        attempt.revision++;
      },
      remove: async (path) => {
        attempt.edits.set(normalizeWorkspacePath(path), null);
        attempt.revision++;
      },
    };
  }

  async readBase(handle: WorkspaceHandle, path: string): Promise<string | null> {
    this.attempt(handle);
    const key = normalizeWorkspacePath(path);
    const base = this.baseText(key);
    return typeof base === 'object' && base !== null ? await base : base;
  }

  /** The base's versions of `paths` while `run` runs; the attempt's edits (or their absence) come back after. */
  async withBaseFiles<T>(handle: WorkspaceHandle, paths: readonly string[], run: () => Promise<T>, options?: { testItemsOf?: readonly string[] }): Promise<WorkspaceResult<{ value: T }>> {
    const attempt = this.attempt(handle);
    const whole = [...new Set(paths.map(normalizeWorkspacePath))];
    const inline = [...new Set((options?.testItemsOf ?? []).map(normalizeWorkspacePath))].filter((key) => !whole.includes(key));
    const keys = [...whole, ...inline];
    const saved = keys.map((key) => ({ key, had: attempt.edits.has(key), value: attempt.edits.get(key) }));
    const restoreTestItems = this.restoreTestItems;
    if (inline.length > 0 && !restoreTestItems) {
      return { ok: false, reason: 'io', message: `This memory workspace cannot put the base's inline tests back into ${inline.join(', ')}. To fix: give it restoreTestItems.`, retryable: false };
    }
    const merged = new Map<string, string>();
    for (const key of inline) {
      const current = attempt.edits.has(key) ? attempt.edits.get(key)! : await this.readBaseFile(key);
      if (current !== null && restoreTestItems) merged.set(key, await restoreTestItems((await this.readBaseFile(key)) ?? '', current));
    }
    for (const key of whole) attempt.edits.delete(key);
    for (const [key, text] of merged) attempt.edits.set(key, text);
    attempt.revision++;
    try {
      return { ok: true, value: await run() };
    } finally {
      for (const { key, had, value } of saved) {
        if (had) attempt.edits.set(key, value ?? null);
        else attempt.edits.delete(key);
      }
      attempt.revision++;
    }
  }

  /** Back to the base: the attempt's edits are forgotten (what `git reset --hard && git clean -fd` does to a worktree). */
  async resetToBase(handle: WorkspaceHandle): Promise<WorkspaceResult<{}>> {
    const attempt = this.attempt(handle);
    attempt.edits.clear();
    attempt.revision++;
    attempt.reviewed = undefined;
    return { ok: true };
  }

  /** Base results across ticks, kept in memory (one environment: the key alone decides); on with `cacheBaselines`. */
  readonly baselineCache?: (handle: WorkspaceHandle) => BaselineCache;

  /** Deletes a file in the attempt (what `git rm` would do in a worktree). */
  remove(handle: WorkspaceHandle, path: string): void {
    const attempt = this.attempt(handle);
    attempt.edits.set(normalizeWorkspacePath(path), null);
    attempt.revision++;
  }

  async changes(handle: WorkspaceHandle): Promise<WorkspaceResult<{ changes: ChangeSet }>> {
    const attempt = this.attempt(handle);
    const versions = await this.versions(attempt);
    attempt.reviewed = versions;
    attempt.reviewedAt = attempt.revision;
    return { ok: true, changes: buildChangeSet(versions, this.patchLimit) };
  }

  async commit(handle: WorkspaceHandle, request: CommitRequest): Promise<WorkspaceResult<{ commit: CommitRecord }>> {
    const attempt = this.attempt(handle);
    const reviewed = attempt.reviewed;
    if (!reviewed) return conflict(`Refused to commit ${handle.id}: changes() was never called, so nothing was checked.`);
    // Unwritten since changes() over a base that cannot move (no readBase from disk): exactly what was reviewed.
    const unwritten = attempt.reviewedAt === attempt.revision && !this.readBaseOption;
    const moved = unwritten ? [] : movedSince(reviewed, await this.versions(attempt));
    if (moved.length > 0) {
      return conflict(`Refused to commit ${handle.id}: ${moved.join(', ')} changed after changes() was read, so the commit would hold files nobody checked.`);
    }
    // Filled by a loop: building it and JSON.stringify took ~2× as long from Object.fromEntries on V8 11 (~0.8 vs ~0.45 µs).
    const files: Record<string, string | null> = {};
    // `versions()` lists paths sorted (comparePaths), so the files are in that order.
    for (const version of reviewed) files[version.path] = version.after;
    const sha = fnv1a([handle.id, '\n', request.message, '\n', JSON.stringify(files)]);
    const commit = { sha, branch: handle.branch };
    attempt.status = 'committed';
    // The request's keys copied onto the record's own literal (an empty literal grew a second array for them).
    const record: MemoryCommit = Object.assign({ sha, branch: handle.branch, message: request.message, trailers: request.trailers, author: request.author, files }, request);
    record.files = files;
    attempt.commit = record;
    return { ok: true, commit };
  }

  async discard(handle: WorkspaceHandle): Promise<void> {
    const attempt = this.attempts.get(handle.id);
    if (attempt) {
      attempt.status = 'rejected';
      attempt.edits.clear();
      attempt.revision++;
      attempt.reviewed = undefined;
    }
  }

  async keep(handle: WorkspaceHandle, reason: string): Promise<void> {
    const attempt = this.attempt(handle);
    attempt.status = 'escalated';
    attempt.keptBecause = reason;
  }

  /** What happened to each attempt, for tests and the dry-run report. */
  inspect(): Array<{ handle: WorkspaceHandle; status: MemoryWorkspaceStatus; edits: Record<string, string | null>; commit?: MemoryCommit }> {
    return [...this.attempts.values()].map((attempt) => ({
      handle: attempt.handle,
      status: attempt.status,
      edits: Object.fromEntries(attempt.edits),
      ...(attempt.commit ? { commit: attempt.commit } : {}),
    }));
  }

  private attempt(handle: WorkspaceHandle): Attempt {
    const attempt = this.attempts.get(handle.id);
    if (!attempt) {
      throw new LoopRuntimeError('WORKSPACE_FAILED', `Unknown memory workspace ${handle.id}.`, { fix: 'use a handle from prepare() on this workspace.' });
    }
    return attempt;
  }

  /** Each edited path that differs from the base, sorted by path. */
  private async versions(attempt: Attempt): Promise<FileVersions[]> {
    const versions: FileVersions[] = [];
    for (const [path, after] of attempt.edits.size < 2 ? attempt.edits : [...attempt.edits].sort(([a], [b]) => comparePaths(a, b))) {
      // The base map answers without an await; only a base read from elsewhere (readBase) is waited for.
      const base = this.baseText(path);
      const before = typeof base === 'object' && base !== null ? await base : base;
      if (before !== after) versions.push({ path, before, after });
    }
    // An exact-size copy: `changes()` keeps the list for as long as the attempt is kept (for `inspect()`), and a
    // list grown by push holds room for 17 entries.
    return versions.slice();
  }

  private async readBaseFile(path: string): Promise<string | null> {
    return this.baseText(path);
  }

  /** A base file's text, or null: at once from the snapshot (or when there is nothing else to ask), else read on demand. */
  private baseText(path: string): string | null | Promise<string | null> {
    if (this.base.has(path)) return this.base.get(path)!;
    return this.readBaseOption ? this.readBaseOption(path) : null;
  }
}
