/**
 * The worktree manifest (`<worktrees directory>/manifest.json`) in the format loop-worktree writes:
 * `{version: 1, worktrees: [{id, path, branch, baseBranch, pattern, createdAt, status}]}`.
 *
 * We add optional fields (item key, tick, base commit, owner pid, reason,
 * commit) and a `pool` list of idle worktrees kept for reuse. A reader that
 * does not know them ignores them; a manifest another tool rewrote without
 * them still parses. Pure: no I/O.
 */
import * as z from 'zod';

export const WORKTREE_STATUSES = ['active', 'rejected', 'escalated', 'merged', 'stale'] as const;
export type WorktreeStatus = (typeof WORKTREE_STATUSES)[number];

export const WorktreeEntrySchema = z.looseObject({
  id: z.string().min(1),
  path: z.string().min(1),
  branch: z.string().min(1),
  baseBranch: z.string().nullable().default(null),
  pattern: z.string().default(''),
  createdAt: z.string().default(''),
  status: z.enum(WORKTREE_STATUSES).catch('stale'),
  // --- loop-runtime extras (optional, ignored by loop-worktree)
  itemKey: z.string().optional(),
  itemTitle: z.string().optional(),
  tickId: z.string().optional(),
  baseCommit: z.string().optional(),
  pid: z.number().optional(),
  reason: z.string().optional(),
  commit: z.string().optional(),
  updatedAt: z.string().optional(),
  /** True once the worktree directory has been recycled into the pool or removed. */
  released: z.boolean().optional(),
});
export type WorktreeEntry = z.infer<typeof WorktreeEntrySchema>;

/** An idle worktree kept for reuse: detached, reset and cleaned at `head`. */
export const PoolSlotSchema = z.looseObject({
  path: z.string().min(1),
  head: z.string().min(1),
  clean: z.boolean().default(false),
});
export type PoolSlot = z.infer<typeof PoolSlotSchema>;

export const WorktreeManifestSchema = z.looseObject({
  version: z.literal(1).catch(1),
  worktrees: z.array(z.unknown()).default([]),
  pool: z.array(z.unknown()).optional(),
});

export interface WorktreeManifest {
  version: 1;
  worktrees: WorktreeEntry[];
  pool: PoolSlot[];
}

/** An empty manifest. */
export function emptyManifest(): WorktreeManifest {
  return { version: 1, worktrees: [], pool: [] };
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
  const parsed = WorktreeManifestSchema.safeParse(raw);
  if (!parsed.success) return emptyManifest();
  const worktrees: WorktreeEntry[] = [];
  for (const entry of parsed.data.worktrees) {
    const result = WorktreeEntrySchema.safeParse(entry);
    if (result.success) worktrees.push(result.data);
  }
  const pool: PoolSlot[] = [];
  for (const slot of parsed.data.pool ?? []) {
    const result = PoolSlotSchema.safeParse(slot);
    if (result.success) pool.push(result.data);
  }
  return { version: 1, worktrees, pool };
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
