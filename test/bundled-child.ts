/**
 * A TypeScript child process script (a worker, a second process of a conformance suite) bundled by esbuild once per
 * test file, to run with plain `node`: the package's own bundler over the same sources. Run with vite-node instead,
 * every start of the child transforms all the sources it reaches again, seconds of CPU per process.
 *
 * The bundle lies under node_modules/.cache, so the packages it leaves external resolve from this checkout;
 * `import.meta.url` in it is a module two levels below the package root, as in dist/lib, where the package root
 * (findPackageRoot) and its version are looked for. It is removed when the test file ends.
 *
 * Code-split as dist/lib is: each `import()` in the sources stays a lazy import of its own chunk, so what a module
 * loads on first use (proper-lockfile and its signal listeners on the first lock, a CLI command's handler) still
 * loads then, not when the child starts. The child is plain `node` running the entry: the pid the test holds is the
 * process doing the work, as it was under vite-node (which runs the script in its own process).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const bundles = new Map<string, Promise<string>>();
let directory: Promise<string> | undefined;

// The directory goes with the test file that made it (a vitest fork may end without an 'exit' event).
afterAll(async () => {
  if (directory) rmSync(await directory, { recursive: true, force: true });
});

/**
 * The path of `entry` (a .ts file under test/) bundled for node, built on the first call.
 *
 * @example
 * ```ts
 * spawn(process.execPath, [await bundledChild(join(import.meta.dirname, 'fleet-service-child.ts')), ...args]);
 * ```
 */
export function bundledChild(entry: string): Promise<string> {
  let bundle = bundles.get(entry);
  if (!bundle) {
    const index = bundles.size;
    bundle = (async () => {
      directory ??= (async () => {
        mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
        return mkdtemp(join(ROOT, 'node_modules', '.cache', 'bundled-child-'));
      })();
      // One directory per entry: entries and their chunks side by side, two entries never share a chunk name.
      const outdir = join(await directory, String(index));
      const name = basename(entry, '.ts');
      await build({
        entryPoints: { [name]: entry },
        outdir,
        bundle: true,
        splitting: true,
        // .mjs: a .js file under node_modules is CommonJS to node (no package.json of ours applies there).
        outExtension: { '.js': '.mjs' },
        chunkNames: 'chunk-[hash]',
        platform: 'node',
        format: 'esm',
        target: 'node20',
        packages: 'external',
        logLevel: 'error',
        define: { 'import.meta.url': JSON.stringify(pathToFileURL(join(ROOT, 'test', 'bundled', `${name}.mjs`)).href) },
      });
      return join(outdir, `${name}.mjs`);
    })();
    bundles.set(entry, bundle);
  }
  return bundle;
}
