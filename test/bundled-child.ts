/**
 * A TypeScript child process script (a worker, a second process of a conformance suite) bundled by esbuild once per
 * test file, to run with plain `node`: the package's own bundler over the same sources. Run with vite-node instead,
 * every start of the child transforms all the sources it reaches again, seconds of CPU per process.
 *
 * The bundle lies under node_modules/.cache, so the packages it leaves external resolve from this checkout;
 * `import.meta.url` in it is a module two levels below the package root, as in dist/lib, where the package root
 * (findPackageRoot) and its version are looked for. It is removed when the test file ends.
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
    bundle = (async () => {
      directory ??= (async () => {
        mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
        return mkdtemp(join(ROOT, 'node_modules', '.cache', 'bundled-child-'));
      })();
      const outfile = join(await directory, `${basename(entry, '.ts')}.mjs`);
      await build({
        entryPoints: [entry],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        packages: 'external',
        logLevel: 'error',
        define: { 'import.meta.url': JSON.stringify(pathToFileURL(join(ROOT, 'test', 'bundled', basename(outfile))).href) },
      });
      return outfile;
    })();
    bundles.set(entry, bundle);
  }
  return bundle;
}
