/**
 * The package root is the engine, plan building, the runtime, errors and port types: at most 60 runtime values
 * (issue 24; it was 175). Everything else is behind a subpath declared in package.json `exports` and built by
 * scripts/build-bundle.js. Checked against the built bundle (`npm run build` first, as `npm test` does).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = process.cwd();
const ROOT_LIMIT = 60;
const bundle = (name: string) => import(/* @vite-ignore */ join(root, 'dist', 'lib', `${name}.js`)) as Promise<Record<string, unknown>>;

describe('the package root and its subpaths', () => {
  it(`exports at most ${ROOT_LIMIT} runtime values from the root, the ones a loop needs among them`, async () => {
    const index = await bundle('index');
    expect(Object.keys(index).length).toBeLessThanOrEqual(ROOT_LIMIT);
    for (const name of ['LoopEngine', 'buildPlan', 'openRuntime', 'createLoopRuntime', 'LoopRuntimeError', 'loadRegistry', 'formatDiagnostic', 'BudgetBreaker']) expect(typeof index[name]).not.toBe('undefined');
  });

  it('would be over the limit with what the subpaths hold (the count bites)', async () => {
    const [index, schemas, helpers, adapters] = await Promise.all(['index', 'schemas', 'helpers', 'adapters'].map(bundle));
    const all = new Set([...Object.keys(index!), ...Object.keys(schemas!), ...Object.keys(helpers!), ...Object.keys(adapters!)]);
    expect(all.size).toBeGreaterThan(ROOT_LIMIT);
    expect(Object.keys(index!)).not.toContain('PatternSchema');
    expect(Object.keys(index!)).not.toContain('MemoryWorkspace');
    expect(Object.keys(index!)).not.toContain('FileStateWriter');
  });

  it('declares each subpath in package.json exports, with a built file and declarations, and the bundle builds each', async () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | { types: string; import: string }> };
    // What scripts/build-bundle.js wrote: one output file per entry point (and the chunks they share).
    const outputs = Object.keys(JSON.parse(readFileSync(join(root, 'dist', 'lib', 'modules.json'), 'utf8')) as Record<string, unknown>);
    for (const subpath of ['.', './schemas', './helpers', './adapters', './testing', './testing/conformance', './backends']) {
      const entry = manifest.exports[subpath];
      expect(entry, subpath).toBeTypeOf('object');
      if (typeof entry !== 'object') continue;
      expect(existsSync(join(root, entry.import)), entry.import).toBe(true);
      expect(existsSync(join(root, entry.types)), entry.types).toBe(true);
      expect(outputs).toContain(entry.import.replace('./dist/lib/', ''));
    }
    const [schemas, helpers, adapters] = await Promise.all(['schemas', 'helpers', 'adapters'].map(bundle));
    expect(typeof schemas!.PatternSchema).toBe('object');
    expect(typeof helpers!.checkGate).toBe('function');
    expect(typeof adapters!.FileStateWriter).toBe('function');
  });
});
