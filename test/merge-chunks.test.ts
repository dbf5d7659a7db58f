/**
 * The build's chunk merge (scripts/merge-chunks.js) picks only chunks whose merge loads nothing new: each rule is
 * paired with a chunk that breaks it and must stay out, beside its twin that may merge.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a build script in plain JavaScript, without declarations
import { chooseMembers, mergeChunks } from '../scripts/merge-chunks.js';

type Import = { path: string; kind: 'import-statement' | 'dynamic-import'; external?: boolean };
type Chunk = { bytes: number; imports: Import[]; exports: string[]; inputs: Record<string, unknown> };
const chunk = (bytes: number, imports: Import[] = [], exports: string[] = []): Chunk => ({ bytes, imports, exports, inputs: { 'src/module.ts': {} } });
/** esbuild's facade for an import(): no module of its own, it re-exports under the same names what the chunks it imports define. */
const facade = (imports: Import[], exports: string[]): Chunk => ({ bytes: 100, imports, exports, inputs: {} });
const uses = (path: string): Import => ({ path, kind: 'import-statement' });
const builtin = (path: string): Import => ({ path, kind: 'import-statement', external: true });

type Options = { maxBytes?: number; candidates?: Set<string>; settled?: Set<string>; builtins?: string[] };
function members(outputs: Record<string, Chunk>, options: Options = { maxBytes: 1000 }): string[] {
  return (chooseMembers as (metafile: unknown, main: string, options: Options) => string[])({ outputs }, 'out/main.js', options);
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
      'out/main.js': chunk(5000, [{ path: 'out/lazy.js', kind: 'dynamic-import' }]),
      // A chunk of its own that happens to export the same name as another: two bindings, one name.
      'out/a-other.js': chunk(100, [uses('out/z-defines.js')], ['describe']),
      'out/z-defines.js': chunk(1000, [], ['describe']),
      'out/uses.js': chunk(500, [uses('out/z-defines.js')], ['status']),
    };
    expect(members(outputs)).toEqual(['out/uses.js', 'out/z-defines.js']);
  });

  it("merges esbuild's facade beside the chunk it re-exports (one binding), through a chain of facades", () => {
    const outputs = {
      'out/main.js': chunk(5000, [{ path: 'out/a-facade.js', kind: 'dynamic-import' }]),
      'out/a-facade.js': facade([uses('out/b-facade.js')], ['describe']),
      'out/b-facade.js': facade([uses('out/z-defines.js')], ['describe']),
      'out/z-defines.js': chunk(1000, [], ['describe', 'other']),
      'out/uses.js': chunk(500, [uses('out/z-defines.js')], ['status']),
    };
    expect(members(outputs)).toEqual(['out/a-facade.js', 'out/b-facade.js', 'out/uses.js', 'out/z-defines.js']);
  });

  it('takes only the candidates, of any size, and lets members import chunks merged before (never merging those again)', () => {
    const outputs = {
      'out/main.js': chunk(5000, [{ path: 'out/status.js', kind: 'dynamic-import' }]),
      'out/status.js': chunk(40_000, [uses('out/report.js'), uses('out/earlier.js')], ['status']),
      'out/report.js': chunk(20_000, [], ['report']),
      'out/earlier.js': chunk(100, [], ['e']),
      'out/run-only.js': chunk(100, [], ['run']),
      'out/needs-unmerged.js': chunk(100, [uses('out/run-only.js')], ['n']),
    };
    const candidates = new Set(['out/status.js', 'out/report.js', 'out/earlier.js', 'out/needs-unmerged.js']);
    expect(members(outputs, { candidates, settled: new Set(['out/earlier.js']) })).toEqual(['out/report.js', 'out/status.js']);
    // Without `earlier.js` merged before, status.js imports a chunk outside the merge and stays out with it.
    expect(members(outputs, { candidates: new Set(['out/status.js', 'out/report.js']) })).toEqual(['out/report.js']);
  });

  it('admits the Node built-ins it is given (the ones every everyday command loads)', () => {
    const outputs = {
      'out/main.js': chunk(5000),
      'out/os.js': chunk(100, [builtin('node:os')], ['os']),
      'out/hashes.js': chunk(100, [builtin('node:crypto')], ['hashes']),
    };
    expect(members(outputs, { builtins: ['node:os'] })).toEqual(['out/os.js']);
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

describe('mergeChunks', () => {
  async function bundleDir(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'merge-chunks-'));
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    return dir;
  }
  const meta = (outputs: Record<string, Chunk>) => ({ outputs: Object.fromEntries(Object.entries(outputs).map(([file, output]) => [`out/${file}`, output])) });
  const merge = mergeChunks as (options: { outdir: string; members: string[]; name: string; minify: object; metafile: unknown }) => Promise<string[]>;

  it("merges a facade beside its definition, and points the other chunks' imports at the merged chunk", async () => {
    const dir = await bundleDir({
      'a.js': 'export const x = 1;',
      'facade.js': 'import { x } from "./a.js"; export { x };',
      'user.js': 'import { x } from "./facade.js"; export const y = () => import("./a.js").then((a) => a.x + x);',
    });
    try {
      const metafile = meta({ 'a.js': chunk(100, [], ['x']), 'facade.js': facade([uses('out/a.js')], ['x']) });
      expect(await merge({ outdir: dir, members: ['out/a.js', 'out/facade.js'], name: 'chunk-m.js', minify: {}, metafile })).toEqual(['a.js', 'facade.js']);
      expect(await readFile(join(dir, 'user.js'), 'utf8')).toBe('import { x } from "./chunk-m.js"; export const y = () => import("./chunk-m.js").then((a) => a.x + x);');
      const user = (await import(pathToFileURL(join(dir, 'user.js')).href)) as { y: () => Promise<number> };
      expect(await user.y()).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to merge two bindings under one name, and keeps a member that exports nothing', async () => {
    const dir = await bundleDir({ 'a.js': 'export const same = 1;', 'b.js': 'export const same = 2;', 'effect.js': 'globalThis.mergedEffect = 1;' });
    try {
      const metafile = meta({ 'a.js': chunk(100, [], ['same']), 'b.js': chunk(100, [], ['same']), 'effect.js': chunk(100) });
      await expect(merge({ outdir: dir, members: ['out/a.js', 'out/b.js'], name: 'chunk-m.js', minify: {}, metafile })).rejects.toThrow('cannot merge b.js: another member exports "same" as a different binding');
      await merge({ outdir: dir, members: ['out/a.js', 'out/effect.js'], name: 'chunk-m.js', minify: {}, metafile });
      expect(await readFile(join(dir, 'chunk-m.js'), 'utf8')).toContain('globalThis.mergedEffect = 1;');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
