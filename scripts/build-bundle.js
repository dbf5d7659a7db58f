#!/usr/bin/env node
/**
 * `npm run build`, after tsc: one rolldown call bundling the library's entry points and the CLI's into dist/lib/.
 * `exports` and `bin` both load it, so the CLI and a backend plugin importing 'loop-runtime' share every module (one
 * LoopRuntimeError class). Each `import()` in the source (every command's handler in src/cli/commands/index.ts, the
 * runtime's lazy imports) stays lazy.
 *
 * - ESM in, ESM out, no step after rolldown. tsc still type-checks and writes the declarations `exports` names
 *   (dist/src/**\/*.d.ts); its JavaScript is for the repository's own scripts and is not in the package.
 * - Chunk groups (GROUPS): Node 20 pays ~0.4 ms of CPU per ES module file it loads, whatever its size, so the
 *   everyday commands' code is merged into a few files instead of one chunk per set of entry points reaching a module
 *   (automatic splitting, esbuild's only mode: `status` loaded 55 files). Everything else is split automatically.
 * - Bundled: our code and the dependencies the CLI runs (BUNDLED). Every other package stays an import of the
 *   installed one: optional peers (openai, pg, dbos), `@opentelemetry/api` (its global registry must be the user's
 *   copy), and packages one rare command uses or that read their own files (hono, @octokit/rest, uplot).
 * - dist/lib/modules.json: which source modules and packages each output file holds (tests check what a command
 *   loads by it); dist/lib/meta.json: each output's bytes and its modules' rendered bytes, for
 *   scripts/bundle-weight.js and the tests' size ceilings.
 */
import { writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { esmExternalRequirePlugin } from 'rolldown/plugins';

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

/**
 * The chunk groups, in priority order. Each is one output file holding every module its roots reach by static
 * imports, less what an earlier group holds: a command that loads any of it loads all of it, and nothing it does not
 * reach statically from a root (an `import()` to elsewhere stays its own chunk, loaded on first use).
 * - cli: what every command loads (the parser, the command table, the error classes). rolldown's own helpers are
 *   a file of their own (~1 KB) that no group can take.
 * - everyday: the handlers of list, plan, validate and status with the project loader, the config and the stores
 *   status reads (file-stores: imported lazily, loaded by status and every tick). list loads status's code too
 *   (~60 KB more): fewer files cost less than fewer bytes. zod, yaml and execa are out of these roots' reach
 *   (test/cli-cold-start.test.ts).
 * - tick: `run` and what a tick loads on every path, the dry run included — the engine, the runtime, the tick
 *   events, the backend choice, git (simple-git) and the file locks and atomic writes. What a tick loads only
 *   sometimes (the git delivery, zod's schemas, the agent backends, the sandbox) stays lazy and split.
 * A root that no longer exists fails the build: rename it here with the module.
 */
export const GROUPS = [
  { name: 'cli', roots: ['src/cli/main.ts', 'src/cli/package-version.ts'] },
  { name: 'everyday', roots: ['src/cli/commands/list.ts', 'src/cli/commands/plan.ts', 'src/cli/commands/validate.ts', 'src/cli/commands/status.ts', 'src/composition/stores/file-stores.ts'] },
  {
    name: 'tick',
    roots: [
      'src/cli/commands/run.ts', 'src/use-cases/run.ts', 'src/adapters/tick-events/tick-events.ts', 'src/adapters/workspace/worktrees-location.ts',
      'src/composition/backend-choice.ts', 'src/adapters/git/git-run.ts', 'src/adapters/fs/file-lock.ts',
      'node_modules/write-file-atomic/lib/index.js', 'node_modules/proper-lockfile/index.js',
    ],
  },
];

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** true: an import of the installed package; undefined: bundled (relative paths, node built-ins rolldown keeps). */
function external(id, importer) {
  if (/^[./\0]/.test(id) || id.startsWith('node:') || builtinModules.includes(id)) return undefined;
  if (BUNDLED.includes(packageName(id)) || importer?.includes('/node_modules/')) return undefined;
  return true;
}

/** Module id → group name, from the module graph (computed once, on the first module rolldown asks about). */
let groupOf;
function groupFor(id, context) {
  if (!groupOf) {
    groupOf = new Map();
    for (const group of GROUPS) {
      const pending = group.roots.map((path) => join(root, path));
      for (const path of pending) {
        if (!context.getModuleInfo(path)) throw new Error(`scripts/build-bundle.js: chunk group "${group.name}" names ${relative(root, path)}, which the bundle does not hold. To fix: rename or remove the root in GROUPS.`);
      }
      const seen = new Set();
      while (pending.length > 0) {
        const next = pending.pop();
        if (seen.has(next)) continue;
        seen.add(next);
        if (!groupOf.has(next)) groupOf.set(next, group.name);
        pending.push(...(context.getModuleInfo(next)?.importedIds ?? []));
      }
    }
  }
  return groupOf.get(id);
}

const bundle = await rolldown({
  cwd: root,
  input: Object.fromEntries(Object.entries(ENTRY_POINTS).map(([name, path]) => [name, join(root, path)])),
  platform: 'node',
  external,
  transform: {
    target: 'node20',
    // write-file-atomic hashes its own file name into its temporary names (uniqueness only); in ESM it has no
    // CommonJS `__filename`, so it gets the output file's (Node >= 20.11; engines say >= 20.19).
    define: { __filename: 'import.meta.filename' },
  },
  // CommonJS dependencies bundled into ESM (picocolors, graceful-fs, cross-spawn…) call require() for Node built-ins:
  // rolldown's documented answer turns each into an `import` of the built-in, so no output file makes a `require`
  // (createRequire) when it loads. A require() of anything else (debug's optional supports-color, in a try) throws
  // and is caught, as it has no `require` polyfill.
  plugins: [esmExternalRequirePlugin({ external: [/^node:/, ...builtinModules.map((name) => `^${name.replaceAll('/', '\\/')}$`).map((source) => new RegExp(source))] })],
  // An `import()` of a module another module imports statically keeps it in the chunk it is in anyway: with the
  // groups that costs no file (no facade), so rolldown's notice about it is noise here.
  checks: { ineffectiveDynamicImport: false },
  logLevel: 'warn',
});
const { output } = await bundle.write({
  dir: outdir,
  cleanDir: true,
  format: 'esm',
  polyfillRequire: false,
  // Entries and chunks side by side: code that reads files relative to itself (the package.json, the console's
  // assets) finds them at the same depth from every output file.
  entryFileNames: '[name].js',
  chunkFileNames: '[name]-[hash].js',
  codeSplitting: {
    groups: GROUPS.map(({ name }, index) => ({ name: (id, context) => (groupFor(id, context) === name ? name : null), debugName: name, priority: GROUPS.length - index })),
  },
  // Identifiers kept for readable stack traces; whitespace and syntax minified (less to read and compile).
  minify: { compress: true, mangle: false, codegen: { removeWhitespace: true } },
  comments: { legal: true, annotation: false, jsdoc: false },
});
await bundle.close();

// Our paths and bundled packages' (node_modules/…), relative to the repository; rolldown's virtual modules (its
// helpers, the built-in imports) are left out, as esbuild's metafile left its helpers out.
const sourcesOf = (chunk) => Object.entries(chunk.modules).filter(([id, module]) => id.startsWith(`${root}/`) && module.renderedLength > 0);
const modules = {};
const outputs = {};
for (const chunk of output) {
  if (chunk.type !== 'chunk') continue;
  const sources = sourcesOf(chunk);
  modules[chunk.fileName] = sources.map(([id]) => relative(root, id)).sort();
  const inputs = Object.fromEntries(sources.map(([id, module]) => [relative(root, id), { bytesInOutput: module.renderedLength }]));
  outputs[`dist/lib/${chunk.fileName}`] = { bytes: Buffer.byteLength(chunk.code), inputs };
}
await writeFile(join(outdir, 'modules.json'), `${JSON.stringify(modules, null, 1)}\n`);
// The sizes, in the shape of esbuild's metafile (`outputs[path].bytes`, `.inputs[module].bytesInOutput`, module
// bytes before minification): scripts/bundle-weight.js joins it with what a command loads to name the modules behind
// each command's kilobytes. Read by no code at run time.
await writeFile(join(outdir, 'meta.json'), JSON.stringify({ outputs }));
