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
  files: ChangedFile[];
  /** Unified diff text (may be truncated by the adapter); used by anti-gaming checks. */
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

/** File access confined to one workspace. Paths are relative to the workspace root. */
export interface WorkspaceFiles {
  read(path: string): Promise<string | null>;
  write(path: string, content: string): Promise<void>;
}

export type WorkspaceResult<T> = ({ ok: true } & T) | Failure<'git' | 'conflict' | 'io' | 'not-found'>;

/**
 * Where the implementer works. The git adapter gives each attempt its own
 * worktree; the memory adapter keeps files in a Map.
 */
export interface Workspace {
  readonly specificationVersion: 'workspace-v1';
  /** Prune what a crashed tick left behind. Called once at the start of each act-tick. */
  recover?(): Promise<void>;
  prepare(request: { tickId: string; patternId: string; item: WorkItem; branchPrefix: string; baseBranch: string | null }): Promise<WorkspaceResult<{ handle: WorkspaceHandle }>>;
  /** The change against the base commit, read from the workspace itself — never from the agent. */
  changes(handle: WorkspaceHandle): Promise<WorkspaceResult<{ changes: ChangeSet }>>;
  commit(handle: WorkspaceHandle, request: CommitRequest): Promise<WorkspaceResult<{ commit: CommitRecord }>>;
  /** Rejected or failed: throw the attempt away. */
  discard(handle: WorkspaceHandle): Promise<void>;
  /** Escalated: keep it for a human to decide on. */
  keep(handle: WorkspaceHandle, reason: string): Promise<void>;
  /** Optional capability: file access confined to the workspace (used by tool-loop and mock agents). */
  files?(handle: WorkspaceHandle): WorkspaceFiles;
}
