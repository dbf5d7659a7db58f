/**
 * The hand-written manifest reader against the zod schemas it replaced (kept here as the reference): seeded random
 * manifests — fields missing, of their type, empty, of another type, unknown fields, `__proto__` — must read to the
 * same value with the same key order (formatManifest writes what was read back to the file).
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { seededRandom } from '../../../test/seeded-random.js';
import { WORKTREE_STATUSES, parseManifest } from './worktree-manifest.js';

const ReferenceEntry = z.looseObject({
  id: z.string().min(1),
  path: z.string().min(1),
  branch: z.string().min(1),
  baseBranch: z.string().nullable().default(null),
  pattern: z.string().default(''),
  createdAt: z.string().default(''),
  status: z.enum(WORKTREE_STATUSES).catch('stale'),
  itemKey: z.string().optional(),
  itemTitle: z.string().optional(),
  tickId: z.string().optional(),
  baseCommit: z.string().optional(),
  pid: z.number().optional(),
  reason: z.string().optional(),
  commit: z.string().optional(),
  updatedAt: z.string().optional(),
  released: z.boolean().optional(),
});
const ReferencePoolSlot = z.looseObject({ path: z.string().min(1), head: z.string().min(1), clean: z.boolean().default(false) });
const ReferenceManifest = z.looseObject({ version: z.literal(1).catch(1), worktrees: z.array(z.unknown()).default([]), pool: z.array(z.unknown()).optional() });

/** parseManifest as it was with zod (2026-11-27). */
function referenceParse(text: string | null): unknown {
  const empty = { version: 1, worktrees: [], pool: [] };
  if (!text || !text.trim()) return empty;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return empty;
  }
  const parsed = ReferenceManifest.safeParse(raw);
  if (!parsed.success) return empty;
  const worktrees = parsed.data.worktrees.flatMap((entry) => {
    const result = ReferenceEntry.safeParse(entry);
    return result.success ? [result.data] : [];
  });
  const pool = (parsed.data.pool ?? []).flatMap((slot) => {
    const result = ReferencePoolSlot.safeParse(slot);
    return result.success ? [result.data] : [];
  });
  return { version: 1, worktrees, pool };
}

function generator(seed: number) {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const other = (): unknown => pick([0, 1.5, -3, true, false, null, 'x', '', [], ['a'], {}, { a: 1 }]);
  // How often a field is of another type (or an empty string) in the object being generated: most entries are whole.
  let noise = 0;
  const stringish = (): unknown => (random() >= noise ? pick(['a', 'loop/p/x', '.loop-worktrees/x', 'main', '2026-05-01T10:00:00.000Z']) : random() < 0.5 ? '' : other());
  const field = (value: () => unknown): unknown => (random() < 0.2 ? undefined : random() >= noise ? value() : other());
  const object = (fields: Record<string, () => unknown>): Record<string, unknown> => {
    noise = pick([0, 0, 0.03, 0.2]);
    const out: Record<string, unknown> = {};
    const keys = Object.keys(fields).sort(() => random() - 0.5);
    for (const key of keys) {
      const value = field(fields[key]!);
      if (value !== undefined) out[key] = value;
    }
    if (random() < 0.3) out[pick(['note', 'owner', 'constructor', 'toString', 'extra'])] = other();
    return out;
  };
  const entry = () =>
    object({
      id: stringish,
      path: stringish,
      branch: stringish,
      baseBranch: () => (random() < 0.3 ? null : stringish()),
      pattern: stringish,
      createdAt: stringish,
      status: () => pick([...WORKTREE_STATUSES, 'weird', 3]),
      itemKey: stringish,
      itemTitle: stringish,
      tickId: stringish,
      baseCommit: stringish,
      pid: () => pick([1, 4242, 0.5, -1]),
      reason: stringish,
      commit: stringish,
      updatedAt: stringish,
      released: () => random() < 0.5,
    });
  const slot = () => object({ path: stringish, head: stringish, clean: () => random() < 0.5 });
  const list = (item: () => unknown) => Array.from({ length: Math.floor(random() * 4) }, () => (random() < 0.9 ? item() : other()));
  return (): string => {
    const shape = random();
    if (shape < 0.05) return pick(['[]', 'null', '"x"', '{ not json', '', '  ']);
    const manifest = object({ version: () => pick([1, 2, '1']), worktrees: () => list(entry), pool: () => list(slot) });
    let text = JSON.stringify(manifest);
    // JSON.parse makes an own "__proto__" property; the readers must treat it alike.
    if (random() < 0.1) text = text.replace(/"worktrees":\[\{/, '"worktrees":[{"__proto__":{"polluted":true},');
    return text;
  };
}

describe('the worktree manifest reader (no zod)', () => {
  it('reads every generated manifest exactly as the zod schemas did, keeping and dropping entries', () => {
    const next = generator(20261127);
    let kept = 0;
    let dropped = 0;
    let emptied = 0;
    for (let run = 0; run < 1500; run++) {
      const text = next();
      const expected = referenceParse(text) as { worktrees: unknown[]; pool: unknown[] };
      const actual = parseManifest(text);
      expect(JSON.stringify(actual), text).toBe(JSON.stringify(expected));
      expect(actual, text).toEqual(expected);
      const raw = (() => {
        try {
          return JSON.parse(text) as { worktrees?: unknown };
        } catch {
          return null;
        }
      })();
      const written = Array.isArray(raw?.worktrees) ? raw.worktrees.length : 0;
      kept += actual.worktrees.length;
      dropped += written - actual.worktrees.length;
      if (written > 0 && actual.worktrees.length === 0 && actual.pool.length === 0) emptied++;
    }
    // Both outcomes occur, or the comparison proves nothing.
    expect(kept).toBeGreaterThan(100);
    expect(dropped).toBeGreaterThan(100);
    expect(emptied).toBeGreaterThan(10);
  });

  it('keeps a foreign tool\'s fields after ours, in the file\'s order', () => {
    const text = JSON.stringify({ version: 1, worktrees: [{ zz: 1, status: 'active', branch: 'b', path: 'p', id: 'i', owner: 'tool' }] });
    expect(Object.keys(parseManifest(text).worktrees[0]!)).toEqual(['id', 'path', 'branch', 'baseBranch', 'pattern', 'createdAt', 'status', 'zz', 'owner']);
    expect(JSON.stringify(parseManifest(text))).toBe(JSON.stringify(referenceParse(text)));
  });
});
