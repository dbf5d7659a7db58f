import type { WorkItem } from './agent-backend.js';
import type { Failure } from './usage.js';

export interface WorkspaceHandle {
  id: string;
  /** Absolute path the agent works in (a git worktree for the git adapter). */
  path: string;
  branch: string;
  baseCommit: string;
  itemKey: string;
}

export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type-changed' | 'untracked';

export interface ChangedFile {
  path: string;
  status: ChangeStatus;
  /** The old path of a rename or copy. */
  from?: string;
  binary: boolean;
}

export interface ChangeSet {
  /** Every changed path, sorted by path in code-unit order (as git sorts); ignored new files appear as `untracked` (seen, never committed). */
  files: ChangedFile[];
  /**
   * A unified diff of the change, git's dialect (`diff --git a/… b/…`, `/dev/null` for added and deleted files,
   * `rename from`/`rename to`, `Binary files … differ`), readable by jsdiff's `parsePatch`. The anti-gaming
   * checks read it. An adapter may cap it, but only by dropping whole files from the end and saying so in a
   * last line; a file missing from it counts as unchecked.
   */
  patch: string;
}

/** Every path a change touches, old and new names of renames included — what the gate evaluates. */
export function changedPaths(changes: ChangeSet): string[] {
  const paths = new Set<string>();
  for (const file of changes.files) {
    paths.add(file.path);
    if (file.from) paths.add(file.from);
  }
  return [...paths].sort();
}

export interface CommitRequest {
  message: string;
  trailers: Record<string, string>;
  author: { name: string; email: string };
}

export interface CommitRecord {
  sha: string;
  branch: string;
}

/**
 * File access confined to one workspace. Paths are relative to the workspace root (`/` separated; `./` and
 * empty segments are ignored). A path that is absolute, climbs with `..`, names `.git`, names nothing, or
 * resolves through a symbolic link outside the workspace is refused: the call throws a `LoopRuntimeError`
 * with code `WORKSPACE_FAILED` before anything is read or written. `read` of a missing file is `null`.
 */
export interface WorkspaceFiles {
  read(path: string): Promise<string | null>;
  write(path: string, content: string): Promise<void>;
  /** Deletes a file (a missing file is no error). Optional: read-only views leave it out. */
  remove?(path: string): Promise<void>;
}

export type WorkspaceResult<T> = ({ ok: true } & T) | Failure<'git' | 'conflict' | 'io' | 'not-found'>;

/**
 * Where the implementer works. The git adapter gives each attempt its own
 * worktree; the memory adapter keeps files in a Map. Both run the workspace
 * conformance suite (`describeWorkspaceConformance`), which holds them to
 * this contract:
 *
 * - `changes` is read from the workspace itself, never from the agent; renames are reported as `renamed`
 *   with `from`, and the patch is parseable (see `ChangeSet.patch`).
 * - `commit` records exactly the files the last `changes` reported — what the gate and the anti-gaming
 *   checks saw. If the workspace changed since (a file written by a verification command or a late agent
 *   process), or `changes` was never called, it commits nothing and fails with reason `conflict`.
 * - `discard` throws the attempt's work away (nothing of it is left to find); `keep` leaves it for a human.
 * - `files` is confined to the workspace, as `WorkspaceFiles` says.
 */
export interface Workspace {
  readonly specificationVersion: 'workspace-v1';
  /** Prune what a crashed tick left behind. Called once at the start of each act-tick. */
  recover?(): Promise<void>;
  prepare(request: { tickId: string; patternId: string; item: WorkItem; branchPrefix: string; baseBranch: string | null }): Promise<WorkspaceResult<{ handle: WorkspaceHandle }>>;
  /** The change against the base commit, read from the workspace itself — never from the agent. */
  changes(handle: WorkspaceHandle): Promise<WorkspaceResult<{ changes: ChangeSet }>>;
  /** Commits exactly what the last `changes` reported; `conflict` when the workspace moved on since. */
  commit(handle: WorkspaceHandle, request: CommitRequest): Promise<WorkspaceResult<{ commit: CommitRecord }>>;
  /** Rejected or failed: throw the attempt away. */
  discard(handle: WorkspaceHandle): Promise<void>;
  /** Escalated: keep it for a human to decide on. */
  keep(handle: WorkspaceHandle, reason: string): Promise<void>;
  /** Optional capability: file access confined to the workspace (used by tool-loop and mock agents). */
  files?(handle: WorkspaceHandle): WorkspaceFiles;
  /** Optional capability: a file's text at the base commit (`null` when it does not exist there). */
  readBase?(handle: WorkspaceHandle, path: string): Promise<string | null>;
  /**
   * Optional capability: runs `run` with the base commit's version of each of `paths` in the workspace (a path
   * the base does not have is absent meanwhile), then puts the attempt's versions back byte for byte, whatever
   * `run` did to those paths — so verification can run the base's tests over the changed source. The tree
   * `changes()` reported is unchanged afterwards (a following `commit` holds exactly it). Fails with `io`/`git`
   * when the base versions could not be put in place (then `run` did not run) or the attempt's versions could
   * not be put back. `options.testItemsOf`: source files whose tests live inside them (Rust's `#[cfg(test)]`
   * modules and `#[test]` fns); each gets the attempt's code with the base's test items in place of its own.
   */
  withBaseFiles?<T>(handle: WorkspaceHandle, paths: readonly string[], run: () => Promise<T>, options?: { testItemsOf?: readonly string[] }): Promise<WorkspaceResult<{ value: T }>>;
  /**
   * Optional capability: puts the workspace back exactly at the base commit — tracked files restored, untracked
   * files that are not ignored removed (ignored build outputs and caches may stay). The engine calls it after the
   * baseline verification run (not when its results came from the cache: then nothing ran), so a file a command
   * wrote at the base never becomes part of the implementer's change. Fails with `git`/`io` when the workspace could not be reset (then the tick must not go on).
   */
  resetToBase?(handle: WorkspaceHandle): Promise<WorkspaceResult<{}>>;
  /**
   * Optional capability: puts the workspace in the state verification must judge — exactly the tree `changes()`
   * reviewed (the one `commit` records), plus the ignored files the base's own run left (caches, build outputs).
   * Called before and after each verification run: ignored files written or changed since `resetToBase` (or since
   * `prepare` when no reset ran) are removed and listed in `removedIgnored`; files that differ from the reviewed
   * tree (a tracked file rewritten or deleted, a new file the `.gitignore` does not hide) are put back and listed
   * in `written`. Fails with `git`/`io` when it could not; then the change must not be approved.
   */
  restoreGatedTree?(handle: WorkspaceHandle): Promise<WorkspaceResult<{ removedIgnored: string[]; written: string[] }>>;
  /**
   * Optional capability: the verification commands' results at a base, remembered across ticks (issue 28). The
   * engine gives a key naming the base commit, the commands and the runner; the adapter adds the environment's
   * fingerprint (dependency directories, PATH, tool versions) so a changed environment misses. `read` returns
   * the stored value or null (missing, unreadable, another fingerprint); the engine validates it before use.
   */
  baselineCache?(handle: WorkspaceHandle): BaselineCache;
  /**
   * Optional capability: the repository's installed dependency directories (`node_modules`, `.venv`, `venv`) a
   * command in this workspace may see read-only, as absolute `source` (in the user's checkout) → `target` (the
   * same place in the workspace) pairs. Only directories that exist at the source and are absent from the
   * workspace are listed; nothing is copied.
   */
  dependencyDirs?(handle: WorkspaceHandle): Promise<ReadOnlyBind[]>;
}

/** A directory shown read-only at another path (a bind mount in a sandbox, a temporary symlink outside one). */
export interface ReadOnlyBind {
  source: string;
  target: string;
}

/** Stored baseline results by key; a value is whatever the engine wrote (it validates what it reads). */
export interface BaselineCache {
  read(key: string): Promise<unknown>;
  write(key: string, value: unknown): Promise<void>;
}
