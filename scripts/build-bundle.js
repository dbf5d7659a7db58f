#!/usr/bin/env node
/**
 * `npm run build`, after tsc: one esbuild code-split bundle of the library's entry points and the CLI's, into
 * dist/lib/. `exports` and `bin` both load it, so the CLI and a backend plugin importing 'loop-runtime' share every
 * module (one LoopRuntimeError class). Each `import()` in the source (every command's handler in
 * src/cli/commands/index.ts, the runtime's lazy imports) becomes its own chunk, so a command loads what it uses.
 *
 * - ESM in, ESM out, no step after esbuild. tsc still type-checks and writes the declarations `exports` names
 *   (dist/src/**\/*.d.ts); its JavaScript is for the repository's own scripts and is not in the package.
 * - Bundled: our code and the pure-ESM dependencies the CLI runs (BUNDLED): zod alone is ~95 modules to resolve
 *   and link one by one. Every other package stays an import of the installed one: CommonJS packages (bundled
 *   into ESM their `require()` of a built-in would need a shim), optional peers (openai, pg, dbos), and
 *   `@opentelemetry/api`, whose global registry must be the user's copy.
 * - dist/lib/modules.json: which source modules and packages each output file holds (tests check what a command
 *   loads by it).
 */
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'lib');

/** The package's entry points (package.json `exports` and `bin`), by output name. */
export const ENTRY_POINTS = {
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  'testing-conformance': 'src/testing/conformance/index.ts',
  backends: 'backends/index.ts',
  cli: 'src/cli/main.ts',
};

/** Dependencies bundled (by package name), with whatever they import; all pure ESM. */
export const BUNDLED = ['cac', 'zod', 'diff', 'minimatch', 'croner'];

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const externals = {
  name: 'loop-runtime-externals',
  setup(context) {
    context.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      if (BUNDLED.includes(packageName(args.path)) || args.importer.includes('/node_modules/')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

await rm(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: ENTRY_POINTS,
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Entries and chunks side by side: code that reads files relative to itself (the package.json, the console's
  // assets) finds them at the same depth from every output file.
  chunkNames: 'chunk-[hash]',
  // Identifiers kept for readable stack traces; whitespace and syntax minified (less to read and compile).
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'eof',
  plugins: [externals],
  metafile: true,
  logLevel: 'warning',
});

const commonJs = Object.entries(result.metafile.inputs).filter(([path, input]) => path.includes('node_modules/') && input.format === 'cjs');
if (commonJs.length > 0) {
  throw new Error(`The bundle took in CommonJS (${commonJs.map(([path]) => path).join(', ')}), whose require() of Node built-ins fails in an ES module. To fix: leave that package out of BUNDLED in scripts/build-bundle.js.`);
}

const modules = {};
for (const [path, output] of Object.entries(result.metafile.outputs)) {
  if (!path.endsWith('.js')) continue;
  modules[path.split('/').pop()] = Object.keys(output.inputs).sort();
}
await writeFile(join(outdir, 'modules.json'), `${JSON.stringify(modules, null, 1)}\n`);
