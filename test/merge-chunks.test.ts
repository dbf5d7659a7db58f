/**
 * The build's chunk merge (scripts/merge-chunks.js) picks only chunks whose merge loads nothing new: each rule is
 * paired with a chunk that breaks it and must stay out, beside its twin that may merge.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a build script in plain JavaScript, without declarations
import { chooseMembers } from '../scripts/merge-chunks.js';

type Import = { path: string; kind: 'import-statement' | 'dynamic-import'; external?: boolean };
const chunk = (bytes: number, imports: Import[] = [], exports: string[] = []) => ({ bytes, imports, exports, inputs: {} });
const uses = (path: string): Import => ({ path, kind: 'import-statement' });
const builtin = (path: string): Import => ({ path, kind: 'import-statement', external: true });

function members(outputs: Record<string, ReturnType<typeof chunk>>, maxBytes = 1000): string[] {
  return (chooseMembers as (metafile: unknown, main: string, maxBytes: number) => string[])({ outputs }, 'out/main.js', maxBytes);
}

describe('chooseMembers', () => {
  it('merges small leaf chunks and chunks importing only members, start-up chunks and Node built-ins', () => {
    const outputs = {
      'out/main.js': chunk(5000, [uses('out/errors.js'), { path: 'out/cmd.js', kind: 'dynamic-import' }]),
      'out/errors.js': chunk(300, [], ['ExitCode']),
      'out/cmd.js': chunk(900, [uses('out/a.js'), uses('out/b.js')], ['command']),
      'out/a.js': chunk(200, [builtin('node:fs')], ['a']),
      'out/b.js': chunk(200, [uses('out/a.js'), uses('out/errors.js')], ['b']),
    };
    expect(members(outputs)).toEqual(['out/a.js', 'out/b.js', 'out/cmd.js']);
  });

  it('keeps out a chunk that would drag in a big or external dependency, and whatever imports it', () => {
    const outputs = {
      'out/main.js': chunk(5000, [{ path: 'out/cmd.js', kind: 'dynamic-import' }]),
      'out/cmd.js': chunk(900, [uses('out/a.js'), uses('out/b.js'), uses('out/c.js')]),
      'out/zod.js': chunk(140_000, [], ['z']),
      'out/a.js': chunk(200, [uses('out/zod.js')], ['a']),
      'out/b.js': chunk(200, [uses('out/a.js')], ['b']),
      'out/c.js': chunk(200, [builtin('hono')], ['c']),
      'out/d.js': chunk(200, [], ['d']),
    };
    expect(members(outputs)).toEqual(['out/d.js']);
  });

  it('keeps out start-up chunks, big chunks and clashing export names; an import() target may merge', () => {
    const outputs = {
      'out/main.js': chunk(5000, [uses('out/startup.js'), { path: 'out/lazy.js', kind: 'dynamic-import' }]),
      'out/startup.js': chunk(100, [], ['s']),
      'out/lazy.js': chunk(100, [], ['l']),
      'out/big.js': chunk(5000, [], ['g']),
      'out/first.js': chunk(100, [], ['same', 'f']),
      'out/second.js': chunk(100, [], ['same']),
      'out/third.js': chunk(100, [uses('out/second.js')], ['t']),
    };
    expect(members(outputs)).toEqual(['out/first.js', 'out/lazy.js']);
  });

  it('on a clash keeps the chunk that defines the names, whatever the file names, so its importers can merge', () => {
    const outputs = {
      'out/main.js': chunk(5000, [{ path: 'out/a-facade.js', kind: 'dynamic-import' }]),
      // esbuild's facade for an import(): it re-exports the chunk it imports under the same names.
      'out/a-facade.js': chunk(100, [uses('out/z-defines.js')], ['describe']),
      'out/z-defines.js': chunk(1000, [], ['describe']),
      'out/uses.js': chunk(500, [uses('out/z-defines.js')], ['status']),
    };
    expect(members(outputs)).toEqual(['out/uses.js', 'out/z-defines.js']);
  });

  it('admits only the Node built-ins Node loaded at start-up', () => {
    const outputs = {
      'out/main.js': chunk(5000),
      'out/reads.js': chunk(100, [builtin('node:fs/promises'), builtin('node:path')], ['reads']),
      'out/hashes.js': chunk(100, [builtin('node:crypto')], ['hashes']),
      'out/spawns.js': chunk(100, [builtin('node:child_process')], ['spawns']),
    };
    expect(members(outputs)).toEqual(['out/reads.js']);
  });
});
