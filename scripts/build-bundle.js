#!/usr/bin/env node
/**
 * `npm run build`, after tsc: one esbuild code-split bundle of the library's entry points and the CLI's, into
 * dist/lib/. `exports` and `bin` both load it, so the CLI and a backend plugin importing 'loop-runtime' share every
 * module (one LoopRuntimeError class). Each `import()` in the source (every command's handler in
 * src/cli/commands/index.ts, the runtime's lazy imports) becomes its own chunk, so a command loads what it uses.
 *
 * - ESM in, ESM out, no step after esbuild. tsc still type-checks and writes the declarations `exports` names
 *   (dist/src/**\/*.d.ts); its JavaScript is for the repository's own scripts and is not in the package.
 * - Bundled: our code and the dependencies the CLI runs (BUNDLED): zod alone is ~95 modules to resolve and link
 *   one by one, proper-lockfile with graceful-fs ~15. Every other package stays an import of the installed one:
 *   optional peers (openai, pg, dbos), `@opentelemetry/api` (its global registry must be the user's copy), and
 *   packages one rare command uses or that read their own files (hono, @octokit/rest, uplot).
 * - dist/lib/modules.json: which source modules and packages each output file holds (tests check what a command
 *   loads by it); dist/lib/meta.json: esbuild's metafile, for scripts/bundle-weight.js (bytes per module per command).
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
  schemas: 'src/exports/schemas.ts',
  helpers: 'src/exports/helpers.ts',
  adapters: 'src/exports/adapters.ts',
  testing: 'src/testing/index.ts',
  'testing-conformance': 'src/testing/conformance/index.ts',
  backends: 'backends/index.ts',
  cli: 'src/cli/main.ts',
};

/** Dependencies bundled (by package name), with whatever they import. */
export const BUNDLED = ['cac', 'picocolors', 'zod', 'yaml', 'execa', 'simple-git', 'diff', 'minimatch', 'croner', 'proper-lockfile', 'write-file-atomic'];

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
  // CommonJS dependencies bundled into ESM (picocolors, graceful-fs, cross-spawn…) call require() for Node
  // built-ins: esbuild's documented answer is a `require` made by createRequire in each output file. Made on first
  // call, not when the file loads: only the chunk holding esbuild's `__require` ever calls it, and createRequire in
  // each of the 50–100 files a command loads was measurable CPU (a Module object and a path resolution each).
  banner: { js: "import { createRequire as __loopRuntimeCreateRequire } from 'node:module'; let __loopRuntimeRequire; function require(id) { return (__loopRuntimeRequire ??= __loopRuntimeCreateRequire(import.meta.url))(id); }" },
  // write-file-atomic hashes its own file name into its temporary names (uniqueness only); in ESM it has no
  // CommonJS `__filename`, so it gets the output file's (Node >= 20.11; engines say >= 20.19).
  define: { __filename: 'import.meta.filename' },
  plugins: [externals],
  metafile: true,
  logLevel: 'warning',
});

const modules = {};
for (const [path, output] of Object.entries(result.metafile.outputs)) {
  if (!path.endsWith('.js')) continue;
  modules[path.split('/').pop()] = Object.keys(output.inputs).sort();
}
await writeFile(join(outdir, 'modules.json'), `${JSON.stringify(modules, null, 1)}\n`);
// esbuild's metafile as it is (inputs and outputs with their bytes): scripts/bundle-weight.js joins it with what a
// command loads to name the modules behind each command's kilobytes. Read by no code at run time.
await writeFile(join(outdir, 'meta.json'), JSON.stringify(result.metafile));
