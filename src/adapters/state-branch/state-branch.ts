/**
 * Durable state for ephemeral runners: the runtime's state files live on a
 * dedicated branch (default `loop-runtime-state`) of the repository's own
 * remote, at the same paths as in the working tree, next to a manifest
 * `.loop-runtime/state-manifest.json`.
 *
 * - `pullState` fetches the branch and brings its files into the working
 *   tree without dropping local state (state-pull-merge.ts): a journal changed
 *   locally since the last sync, or on the checked-out branch since the state
 *   branch last saw it, is merged as a union; a state file (STATE.md) changed
 *   either way keeps the local version (e.g. a pause line just added).
 * - `pushState` commits the working tree's state files on top of the
 *   branch's tip without touching HEAD, the index or the working tree's other
 *   files (a private index + `commit-tree`), merging with whatever another
 *   runner pushed since our pull (see merge-state.ts: journals are unions in
 *   time order, STATE.md is newest-wins). A rejected push (non-fast-forward)
 *   is retried from a fresh fetch.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { LoopRuntimeError } from '../../core/errors.js';
import { mergeStateText, type MergeStrategy } from '../../core/schedule/merge-state.js';
import { decidePull } from './state-pull-merge.js';
import { readTextOrNull, writeTextAtomically } from '../fs/atomic-file.js';
import { checkoutBlobs, fetchTip, gitRunner } from './state-branch-git.js';

export const DEFAULT_STATE_BRANCH = 'loop-runtime-state';
export const STATE_MANIFEST = '.loop-runtime/state-manifest.json';
/** Local only (never pushed): the state commit this working tree was last synced with. */
export const STATE_SYNC_FILE = '.loop-runtime/state-sync.json';

export interface StateFile {
  /** Repository-relative path, '/'-separated. */
  path: string;
  merge: MergeStrategy;
}

export interface StateBranchOptions {
  root: string;
  remote?: string;
  branch?: string;
  /** The files to push (pull also brings every file the manifest lists). */
  files: readonly StateFile[];
  env?: Record<string, string | undefined>;
  /** Push attempts before giving up (default 8). */
  maxAttempts?: number;
  /** Waits between attempts (tests pass a no-op); default a jittered backoff. */
  sleep?: (attempt: number) => Promise<void>;
  now?: () => number;
}

interface Manifest {
  version: 1;
  updatedAt: string;
  files: Record<string, { merge: MergeStrategy; checkoutBlob: string | null }>;
}

export interface StateFileReport {
  path: string;
  action: 'taken' | 'merged' | 'kept' | 'unchanged' | 'absent';
}

export interface StateSyncResult {
  remote: string;
  branch: string;
  commit: string | null;
  pushed: boolean;
  attempts: number;
  files: StateFileReport[];
}

/**
 * @example
 * ```ts
 * const pulled = await pullState({ root: '/repo', files: defaultStateFiles() }); // pulled.commit → sha or null (no branch yet)
 * ```
 */
export async function pullState(options: StateBranchOptions): Promise<StateSyncResult> {
  const git = gitRunner(options);
  const { remote, branch } = names(options);
  const tip = await fetchTip(git, remote, branch);
  const files: StateFileReport[] = [];
  if (tip) {
    const manifest = parseManifest(await git.show(tip, STATE_MANIFEST));
    const entries = new Map<string, MergeStrategy>(options.files.map((file) => [file.path, file.merge]));
    for (const [path, entry] of Object.entries(manifest?.files ?? {})) entries.set(path, entry.merge);
    const sync = await readSync(options.root);
    const syncedCommit = sync && sync.remote === remote && sync.branch === branch ? sync.commit : undefined;
    for (const [path, merge] of entries) {
      const remoteText = await git.show(tip, path);
      if (remoteText === null) {
        files.push({ path, action: 'absent' });
        continue;
      }
      const absolute = resolve(options.root, path);
      const localText = await readTextOrNull(absolute);
      const seen = manifest?.files[path]?.checkoutBlob ?? null;
      const checkoutBlob = await git.blobAtHead(path);
      // What this file held at the last sync: local changes since then are merged, never overwritten.
      const synced = syncedCommit === undefined ? (checkoutBlob ? await git.catBlob(checkoutBlob) : null) : syncedCommit ? await git.show(syncedCommit, path) : null;
      const decided = decidePull({ merge, local: localText, remote: remoteText, synced, changedOnCheckout: checkoutBlob !== seen, seen: seen ? await git.catBlob(seen) : null });
      const next = decided.next;
      let action: StateFileReport['action'] = decided.action;
      if (next !== null && next !== localText) await writeState(absolute, next);
      else if (action === 'taken' || action === 'merged') action = 'unchanged';
      files.push({ path, action });
    }
  }
  await writeSync(options.root, { remote, branch, commit: tip, checkoutBlobs: await checkoutBlobs(git, options.files) });
  return { remote, branch, commit: tip, pushed: false, attempts: 0, files };
}

/**
 * @example
 * ```ts
 * const pushed = await pushState({ root: '/repo', files: defaultStateFiles() }); // pushed.pushed → true, pushed.attempts → 1
 * ```
 */
export async function pushState(options: StateBranchOptions): Promise<StateSyncResult> {
  const git = gitRunner(options);
  const { remote, branch } = names(options);
  const sync = await readSync(options.root);
  const base = sync && sync.remote === remote && sync.branch === branch ? sync.commit : null;
  const checkoutBlobsAtPull = sync?.checkoutBlobs ?? (await checkoutBlobs(git, options.files));
  const maxAttempts = options.maxAttempts ?? 8;
  const sleep = options.sleep ?? ((attempt: number) => new Promise<void>((done) => setTimeout(done, Math.min(5_000, 100 * 2 ** attempt) * (0.5 + Math.random()))));
  const now = options.now ?? Date.now;

  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const tip = await fetchTip(git, remote, branch);
    const previous = tip ? parseManifest(await git.show(tip, STATE_MANIFEST)) : null;
    const manifest: Manifest = { version: 1, updatedAt: new Date(now()).toISOString(), files: { ...previous?.files } };
    let changed = previous === null;
    const contents = new Map<string, string>();
    const files: StateFileReport[] = [];
    for (const file of options.files) {
      const local = await readTextOrNull(resolve(options.root, file.path));
      const remoteText = tip ? await git.show(tip, file.path) : null;
      const baseText = base ? await git.show(base, file.path) : null;
      const merged = tip && tip !== base ? mergeStateText(file.merge, { base: baseText, local, remote: remoteText, prefer: 'local' }) : local;
      if (merged === null) {
        files.push({ path: file.path, action: 'absent' });
        continue;
      }
      contents.set(file.path, merged);
      const entry = { merge: file.merge, checkoutBlob: checkoutBlobsAtPull[file.path] ?? null };
      if (merged !== remoteText || JSON.stringify(previous?.files[file.path]) !== JSON.stringify(entry)) changed = true;
      manifest.files[file.path] = entry;
      files.push({ path: file.path, action: merged === local ? (merged === remoteText ? 'unchanged' : 'kept') : 'merged' });
    }
    contents.set(STATE_MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
    // Nothing new since the tip: no commit (the manifest's timestamp alone is not a change).
    const commit = !changed ? tip! : await git.commitFiles(tip, contents, `loop-runtime state: ${files.filter((file) => file.action !== 'unchanged' && file.action !== 'absent').length} file(s) updated`);
    if (commit === tip) {
      await writeSync(options.root, { remote, branch, commit: tip, checkoutBlobs: checkoutBlobsAtPull });
      return { remote, branch, commit: tip, pushed: false, attempts: attempt, files };
    }
    const pushed = await git.push(remote, commit, branch);
    if (pushed.ok) {
      for (const [path, text] of contents) {
        if (path === STATE_MANIFEST) continue;
        const absolute = resolve(options.root, path);
        if ((await readTextOrNull(absolute)) !== text) await writeState(absolute, text);
      }
      await writeSync(options.root, { remote, branch, commit, checkoutBlobs: checkoutBlobsAtPull });
      return { remote, branch, commit, pushed: true, attempts: attempt, files };
    }
    if (!pushed.rejected) {
      throw new LoopRuntimeError('STATE_FAILED', `Could not push the state branch ${branch} to ${remote}: ${pushed.message}`, {
        fix: `check that the job may push (GitHub Actions: "permissions: contents: write") and that the remote "${remote}" exists.`,
      });
    }
    await sleep(attempt);
  }
  throw new LoopRuntimeError('STATE_FAILED', `The state branch ${branch} kept moving: ${maxAttempts} push attempts were rejected as non-fast-forward.`, {
    retryable: true,
    fix: 'run `loop-runtime state push` again; if many runners push at once, give each loop its own concurrency group.',
  });
}

async function writeState(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeTextAtomically(path, text);
}

function names(options: StateBranchOptions): { remote: string; branch: string } {
  return { remote: options.remote ?? 'origin', branch: options.branch ?? DEFAULT_STATE_BRANCH };
}

interface SyncRecord {
  remote: string;
  branch: string;
  commit: string | null;
  checkoutBlobs: Record<string, string | null>;
}

async function readSync(root: string): Promise<SyncRecord | null> {
  try {
    return JSON.parse(await readFile(join(root, STATE_SYNC_FILE), 'utf8')) as SyncRecord;
  } catch {
    return null;
  }
}

async function writeSync(root: string, record: SyncRecord): Promise<void> {
  const path = join(root, STATE_SYNC_FILE);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(record, null, 2)}\n`, 'utf8');
}

function parseManifest(text: string | null): Manifest | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Manifest;
    return value && typeof value.files === 'object' ? value : null;
  } catch {
    return null;
  }
}

/**
 * The state files of a set of loops: their state files, run logs and
 * attempt ledgers, plus the spend journal and the lease history.
 *
 * @example
 * ```ts
 * stateFilesFor([{ state: 'STATE.md', runLog: 'loop-run-log.md', ledger: 'loop-ledger.json' }]);
 * ```
 */
export function stateFilesFor(loopFiles: ReadonlyArray<{ state: string; runLog: string; ledger: string }>): StateFile[] {
  const files = new Map<string, MergeStrategy>([
    ['.loop-runtime/spend.jsonl', 'jsonl'],
    ['.loop-runtime/lease-history.jsonl', 'jsonl'],
    // The halts a human was told about (src/adapters/notify/halt-memory.ts): a CI run does not tell one again.
    ['.loop-runtime/notified-halts.jsonl', 'jsonl'],
  ]);
  for (const loop of loopFiles) {
    files.set(loop.runLog, 'run-log');
    files.set(loop.ledger, 'attempt-ledger');
    if (!files.has(loop.state)) files.set(loop.state, 'state-md');
  }
  return [...files].map(([path, merge]) => ({ path, merge }));
}
