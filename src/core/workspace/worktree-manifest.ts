/**
 * The worktree manifest (`<worktrees directory>/manifest.json`) in the format loop-worktree writes:
 * `{version: 1, worktrees: [{id, path, branch, baseBranch, pattern, createdAt, status}]}`.
 *
 * We add optional fields (item key, tick, base commit, owner pid, reason,
 * commit) and a `pool` list of idle worktrees kept for reuse. A reader that
 * does not know them ignores them; a manifest another tool rewrote without
 * them still parses. Pure: no I/O.
 */
export const WORKTREE_STATUSES = ['active', 'rejected', 'escalated', 'merged', 'stale'] as const;
export type WorktreeStatus = (typeof WORKTREE_STATUSES)[number];

/** One worktree's entry; fields another tool added are kept (and written back) as they were. */
export interface WorktreeEntry {
  id: string;
  path: string;
  branch: string;
  baseBranch: string | null;
  pattern: string;
  createdAt: string;
  /** Anything else read as `stale`: an entry in a state we do not know is never acted on. */
  status: WorktreeStatus;
  // --- loop-runtime extras (optional, ignored by loop-worktree)
  itemKey?: string;
  itemTitle?: string;
  tickId?: string;
  baseCommit?: string;
  pid?: number;
  reason?: string;
  commit?: string;
  updatedAt?: string;
  /** True once the worktree directory has been recycled into the pool or removed. */
  released?: boolean;
  [field: string]: unknown;
}

/** An idle worktree kept for reuse: detached, reset and cleaned at `head`. */
export interface PoolSlot {
  path: string;
  head: string;
  clean: boolean;
  [field: string]: unknown;
}

export interface WorktreeManifest {
  version: 1;
  worktrees: WorktreeEntry[];
  pool: PoolSlot[];
}

/** An empty manifest. */
export function emptyManifest(): WorktreeManifest {
  return { version: 1, worktrees: [], pool: [] };
}

// The file is JSON we (or loop-worktree) wrote, read on every tick — the dry run's included — so it is checked by
// hand rather than with a schema library (zod was ~140 KB of the dry run's start-up for this one file). The rules are
// the zod schemas they replaced, held to them by worktree-manifest-compat.test.ts: required strings non-empty,
// optional fields of their type when present, defaults for the rest, unknown fields kept after ours.
type Fields = Record<string, unknown>;
const isRecord = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const ENTRY_STRINGS = ['itemKey', 'itemTitle', 'tickId', 'baseCommit'] as const;
const ENTRY_LATE_STRINGS = ['reason', 'commit', 'updatedAt'] as const;

const KNOWN = new Set(['id', 'path', 'branch', 'baseBranch', 'pattern', 'createdAt', 'status', ...ENTRY_STRINGS, 'pid', ...ENTRY_LATE_STRINGS, 'released']);
const POOL_KNOWN = new Set(['path', 'head', 'clean']);

/** Our fields in their order, then the unknown ones in the file's order (what the zod schemas gave). */
function withUnknownFields(known: Fields, raw: Fields, ours: ReadonlySet<string>): Fields {
  for (const key of Object.keys(raw)) if (!ours.has(key)) known[key] = raw[key];
  return known;
}

function readEntry(raw: unknown): WorktreeEntry | null {
  if (!isRecord(raw)) return null;
  const { id, path, branch, baseBranch = null, pattern = '', createdAt = '', status } = raw;
  if (typeof id !== 'string' || id === '' || typeof path !== 'string' || path === '' || typeof branch !== 'string' || branch === '') return null;
  if ((baseBranch !== null && typeof baseBranch !== 'string') || typeof pattern !== 'string' || typeof createdAt !== 'string') return null;
  const entry: Fields = { id, path, branch, baseBranch, pattern, createdAt, status: (WORKTREE_STATUSES as readonly unknown[]).includes(status) ? status : 'stale' };
  for (const key of ENTRY_STRINGS) if (!optionalOf(raw, key, 'string', entry)) return null;
  if (!optionalOf(raw, 'pid', 'number', entry)) return null;
  for (const key of ENTRY_LATE_STRINGS) if (!optionalOf(raw, key, 'string', entry)) return null;
  if (!optionalOf(raw, 'released', 'boolean', entry)) return null;
  return withUnknownFields(entry, raw, KNOWN) as WorktreeEntry;
}

/** Copies an optional field when present and of its type; false when present and not (the entry is unreadable). */
function optionalOf(raw: Fields, key: string, type: 'string' | 'number' | 'boolean', into: Fields): boolean {
  const value = raw[key];
  if (value === undefined) return true;
  if (typeof value !== type || (type === 'number' && !Number.isFinite(value))) return false;
  into[key] = value;
  return true;
}

function readPoolSlot(raw: unknown): PoolSlot | null {
  if (!isRecord(raw)) return null;
  const { path, head, clean = false } = raw;
  if (typeof path !== 'string' || path === '' || typeof head !== 'string' || head === '' || typeof clean !== 'boolean') return null;
  return withUnknownFields({ path, head, clean }, raw, POOL_KNOWN) as PoolSlot;
}

/**
 * Parses a manifest liberally: a missing or corrupt file (a crash mid-write by
 * another tool) reads as empty, and unreadable entries are dropped, so nothing
 * in it can make a tick fail.
 *
 * @example
 * ```ts
 * parseManifest('{"version":1,"worktrees":[]}'); // → { version: 1, worktrees: [], pool: [] }
 * ```
 */
export function parseManifest(text: string | null): WorktreeManifest {
  if (!text || !text.trim()) return emptyManifest();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return emptyManifest();
  }
  if (!isRecord(raw)) return emptyManifest();
  const { worktrees = [], pool = [] } = raw;
  if (!Array.isArray(worktrees) || !Array.isArray(pool)) return emptyManifest();
  return {
    version: 1,
    worktrees: worktrees.map(readEntry).filter((entry): entry is WorktreeEntry => entry !== null),
    pool: pool.map(readPoolSlot).filter((slot): slot is PoolSlot => slot !== null),
  };
}

/** Serializes a manifest (two-space JSON, trailing newline). */
export function formatManifest(manifest: WorktreeManifest): string {
  return `${JSON.stringify({ version: 1, worktrees: manifest.worktrees, pool: manifest.pool }, null, 2)}\n`;
}

/** Replaces the entry with the same id (or appends it). Returns a new manifest. */
export function upsertEntry(manifest: WorktreeManifest, entry: WorktreeEntry): WorktreeManifest {
  const index = manifest.worktrees.findIndex((candidate) => candidate.id === entry.id);
  const worktrees = [...manifest.worktrees];
  if (index >= 0) worktrees[index] = entry;
  else worktrees.push(entry);
  return { ...manifest, worktrees };
}

/** Applies a change to the entry with `id`; unknown ids leave the manifest as it is. */
export function updateEntry(manifest: WorktreeManifest, id: string, change: Partial<WorktreeEntry>): WorktreeManifest {
  return {
    ...manifest,
    worktrees: manifest.worktrees.map((entry) => (entry.id === id ? { ...entry, ...change } : entry)),
  };
}

/** Whether an entry's directory is (meant to be) on disk. */
export function holdsDirectory(entry: WorktreeEntry): boolean {
  return !entry.released && (entry.status === 'active' || entry.status === 'escalated' || entry.status === 'merged');
}

/**
 * Finds what a human may approve or reject: an escalated, unreleased entry by
 * id, or else the newest one for an item key.
 */
export function findEscalated(manifest: WorktreeManifest, idOrItemKey: string): WorktreeEntry | undefined {
  const waiting = manifest.worktrees.filter((entry) => entry.status === 'escalated' && !entry.released);
  return (
    waiting.find((entry) => entry.id === idOrItemKey) ??
    waiting.filter((entry) => entry.itemKey === idOrItemKey).sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0]
  );
}

/**
 * Drops the oldest finished (released) entries beyond `keep`, so the manifest
 * stays small while recent history remains readable.
 */
export function pruneHistory(manifest: WorktreeManifest, keep = 100): WorktreeManifest {
  const finished = manifest.worktrees.filter((entry) => entry.released);
  if (finished.length <= keep) return manifest;
  const drop = new Set(
    [...finished]
      .sort((a, b) => (a.updatedAt ?? a.createdAt).localeCompare(b.updatedAt ?? b.createdAt))
      .slice(0, finished.length - keep)
      .map((entry) => entry.id),
  );
  return { ...manifest, worktrees: manifest.worktrees.filter((entry) => !drop.has(entry.id)) };
}

/**
 * A readable, unique worktree id: the item key's slug plus the time in base 36,
 * with a counter when that is taken (`mock-1-mhx3k2a0`, `mock-1-mhx3k2a0-2`).
 */
export function makeWorktreeId(itemKey: string, now: number, taken: ReadonlySet<string>): string {
  const slug =
    itemKey
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 32)
      .replace(/-+$/g, '') || 'item';
  const base = `${slug}-${Math.max(0, Math.floor(now)).toString(36)}`;
  if (!taken.has(base)) return base;
  for (let counter = 2; ; counter++) {
    const candidate = `${base}-${counter}`;
    if (!taken.has(candidate)) return candidate;
  }
}
