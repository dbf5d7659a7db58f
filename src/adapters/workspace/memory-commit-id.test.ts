import { describe, expect, it } from 'vitest';
import { MemoryWorkspace } from './memory-workspace.js';

/** The commit id as first defined: FNV-1a (32 bit) of `id\nmessage\nJSON of the files in path order`, in one string. */
function reference(id: string, message: string, files: Record<string, string | null>): string {
  const text = `${id}\n${message}\n${JSON.stringify(files)}`;
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

async function commitOf(edits: Record<string, string | null>, message: string) {
  const workspace = new MemoryWorkspace({ files: { 'a.ts': 'a\n', 'gone.ts': 'g\n' } });
  const prepared = await workspace.prepare({ tickId: 't1', patternId: 'p', branchPrefix: 'loop/', item: { key: 'item', title: 'Item' } } as never);
  if (!prepared.ok) throw new Error(prepared.message);
  for (const [path, content] of Object.entries(edits)) {
    if (content === null) workspace.remove(prepared.handle, path);
    else await workspace.files(prepared.handle).write(path, content);
  }
  expect((await workspace.changes(prepared.handle)).ok).toBe(true);
  const committed = await workspace.commit(prepared.handle, { message, trailers: {}, author: { name: 'n', email: 'e@x' } });
  if (!committed.ok) throw new Error(committed.message);
  return { id: prepared.handle.id, sha: committed.commit.sha };
}

describe('MemoryWorkspace commit ids', () => {
  it('stay the FNV-1a of the id, message and files in path order, for one file and several', async () => {
    const one = await commitOf({ 'a.ts': 'a\nb\n' }, 'one "quoted" line\n\nbody');
    expect(one.sha).toBe(reference(one.id, 'one "quoted" line\n\nbody', { 'a.ts': 'a\nb\n' }));
    const several = await commitOf({ 'z/b.ts': 'b\n', 'a.ts': 'c\n', 'gone.ts': null }, 'several');
    expect(several.sha).toBe(reference(several.id, 'several', { 'a.ts': 'c\n', 'gone.ts': null, 'z/b.ts': 'b\n' }));
    // A different message is a different commit.
    expect((await commitOf({ 'a.ts': 'a\nb\n' }, 'other')).sha).not.toBe(one.sha);
  });
});
