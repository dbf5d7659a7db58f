/**
 * `retain`: the memory workspace forgets its oldest finished attempts and keeps active ones. It reads the order from
 * a list of ids rather than the Map's iteration; held here to the Map walk it replaced, on seeded runs where
 * attempts finish out of order and some stay active.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/seeded-random.js';
import type { WorkspaceHandle } from '../../core/ports/index.js';
import { MemoryWorkspace } from './memory-workspace.js';

type Status = 'active' | 'committed' | 'rejected' | 'escalated';

/** The walk it replaced: in insertion order, delete finished attempts until `retain` are left. */
function forgetOldest(model: Map<string, Status>, retain: number): void {
  for (const [id, status] of model) {
    if (model.size <= retain) return;
    if (status !== 'active') model.delete(id);
  }
}

describe('MemoryWorkspace retain', () => {
  it('keeps the same attempts, in the same order, as the Map walk did (300 seeded runs; active ones stepped over)', async () => {
    const random = seededRandom(20261127);
    let steppedOver = 0;
    for (let run = 0; run < 300; run++) {
      const retain = 1 + Math.floor(random() * 6);
      const workspace = new MemoryWorkspace({ files: { 'a.txt': 'a\n' }, retain });
      const model = new Map<string, Status>();
      const open: WorkspaceHandle[] = [];
      for (let step = 0; step < 60; step++) {
        if (open.length === 0 || random() < 0.5) {
          const prepared = await workspace.prepare({ tickId: `t${step}`, patternId: 'p', item: { key: `i${step}`, title: 't' }, branchPrefix: 'loop/', baseBranch: 'main' });
          if (!prepared.ok) throw new Error(prepared.message);
          open.push(prepared.handle);
          model.set(prepared.handle.id, 'active');
          if ([...model.values()].slice(0, -1).some((status) => status === 'active') && model.size > retain) steppedOver++;
          forgetOldest(model, retain);
        } else {
          // Finish any open attempt, not only the oldest: the order of finishing is not the order of preparing.
          const handle = open.splice(Math.floor(random() * open.length), 1)[0]!;
          if (!model.has(handle.id)) continue;
          if (random() < 0.5) {
            await workspace.discard(handle);
            model.set(handle.id, 'rejected');
          } else {
            await workspace.keep(handle, 'for a human');
            model.set(handle.id, 'escalated');
          }
        }
        expect(workspace.inspect().map((attempt) => [attempt.handle.id, attempt.status])).toEqual([...model]);
      }
    }
    expect(steppedOver).toBeGreaterThan(500);
  });

  it('keeps 100 attempts by default: an active one however old, then the newest finished ones', async () => {
    const workspace = new MemoryWorkspace({ files: { 'a.txt': 'a\n' } });
    const prepare = async (step: number) => {
      const prepared = await workspace.prepare({ tickId: `t${step}`, patternId: 'p', item: { key: 'i', title: 't' }, branchPrefix: 'loop/', baseBranch: 'main' });
      if (!prepared.ok) throw new Error(prepared.message);
      return prepared.handle;
    };
    const oldest = await prepare(0); // stays active throughout
    const ids: string[] = [];
    for (let step = 1; step <= 150; step++) {
      const handle = await prepare(step);
      ids.push(handle.id);
      await workspace.discard(handle);
    }
    const kept = workspace.inspect().map((attempt) => attempt.handle.id);
    expect(kept).toEqual([oldest.id, ...ids.slice(-99)]);
    expect(kept).not.toContain(ids[ids.length - 100]);
  });
});
