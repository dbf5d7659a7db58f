#!/usr/bin/env node
/**
 * `npm run build` step 2 (after tsc): the CLI as an esbuild bundle with code
 * splitting, so a command loads only what it uses.
 *
 * - `dist/cli/main.js` is the entry `bin/loop-runtime.js` requires; every
 *   command's handler (`import('./run.js')` in src/cli/commands/index.ts) and
 *   every lazily imported module becomes its own chunk beside it in dist/cli/.
 * - Then: what the everyday commands load, recorded by running them
 *   (record-loads.js), becomes one chunk and the other small chunks another
 *   (merge-chunks.js); last, every file becomes CommonJS (to-commonjs.js).
 *   DESIGN.md "Cold start" has the why and the numbers.
 * - Our own code and the pure-JS dependencies on the start-up path
 *   (BUNDLED below) are bundled: one file read instead of hundreds of module
 *   resolutions. Everything else stays an import of the installed package:
 *   optional peers (openai, pg, dbos), @opentelemetry/api (a process-wide
 *   registry that must be the user's copy), and packages used by one rare
 *   command or that read their own files.
 * - The pattern catalogue is compiled from registry.yaml to
 *   dist/catalogue.json here, validated by the same loader the runtime uses,
 *   so start-up parses JSON, not YAML.
 *
 * The library (`exports` in package.json) is tsc's dist/src and dist/backends,
 * untouched by this step.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeMetafile, build } from 'esbuild';
import { chooseMembers, mergeChunks } from './merge-chunks.js';
import { EVERYDAY_COMMANDS, recordLoads } from './record-loads.js';
import { convertToCommonJs, dropEsmRequireBanner, ESM_REQUIRE_BANNER } from './to-commonjs.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');
// Built beside, then swapped in: a CLI process started during a rebuild never finds half a bundle.
const nextOutdir = join(root, 'dist', 'cli.next');
/** Chunks up to this size may merge into the shared chunk (see merge-chunks.js). */
const MERGE_MAX_BYTES = Number(process.env.LOOP_RUNTIME_MERGE_MAX_BYTES ?? 8000);
const EVERYDAY_CHUNK = 'chunk-everyday.js';
const SHARED_CHUNK = 'chunk-shared.js';

/** Dependencies bundled into the CLI (by package name); any other bare import stays external. */
export const BUNDLED = ['cac', 'picocolors', 'yaml', 'zod', 'execa', 'croner', 'minimatch', 'diff', 'proper-lockfile', 'write-file-atomic'];

/** Whatever a bundled package imports is bundled too (execa's and minimatch's own dependencies). */
function importedByDependency(importer) {
  return importer.split(sep).includes('node_modules');
}

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const externals = {
  name: 'loop-runtime-externals',
  setup(context) {
    context.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      if (BUNDLED.includes(packageName(args.path)) || importedByDependency(args.importer)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** Compiles registry.yaml to dist/catalogue.json after checking it with the runtime's own loader. */
async function writeCompiledCatalogue() {
  const { loadRegistry } = await import(join(root, 'dist', 'src', 'core', 'config', 'load-registry.js'));
  const { COMPILED_CATALOGUE, compileCatalogue } = await import(join(root, 'dist', 'src', 'project', 'load-catalogue.js'));
  const file = join(root, 'registry.yaml');
  const text = await readFile(file, 'utf8');
  const loaded = loadRegistry(text, file);
  if (!loaded.ok) throw new Error(`registry.yaml is invalid:\n${loaded.issues.map((issue) => `${issue.line}:${issue.column} ${issue.path} ${issue.message}`).join('\n')}`);
  await writeFile(join(root, COMPILED_CATALOGUE), `${JSON.stringify(compileCatalogue(text, loaded.value))}\n`);
}

/** Which bundled packages each output file holds (`chunk-X.js: ['zod']`): tests check a command loads none it does not need. */
function bundledPackages(metafile, merges) {
  const packages = {};
  for (const [path, output] of Object.entries(metafile.outputs)) {
    const file = path.split('/').pop();
    const into = merges.find((merge) => merge.members.includes(file))?.name ?? file;
    const names = new Set(packages[into] ?? []);
    for (const input of Object.keys(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      if (match) names.add(match[1]);
    }
    if (names.size > 0) packages[into] = [...names].sort();
  }
  return packages;
}

await rm(nextOutdir, { recursive: true, force: true });
const minify = { minifySyntax: true, minifyWhitespace: true, legalComments: 'eof' };
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: nextOutdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  ...minify,
  // CommonJS dependencies bundled into ESM (picocolors, cross-spawn) call require() for Node built-ins. Every chunk
  // lives in dist/cli/, so one require serves them all: made once, not once per chunk (createRequire costs ~0.5 ms).
  // (Only while the bundle is ESM: recording what the everyday commands load runs it so; to-commonjs.js drops it.)
  banner: { js: ESM_REQUIRE_BANNER },
  // write-file-atomic hashes its own file name into its temporary names (uniqueness only); bundled into ESM it has
  // no CommonJS `__filename`, so it gets the chunk's (Node >= 20.11; package.json's engines say >= 20.19).
  define: { __filename: 'import.meta.filename' },
  plugins: [externals],
  metafile: true,
  logLevel: 'warning',
});
// Two merges (scripts/merge-chunks.js), because each module costs Node 20's ESM loader ~0.3 ms and each byte
// loaded is compiled: first what the everyday commands were seen loading (scripts/record-loads.js) becomes one
// chunk, so they load few files and little they do not run; then the remaining small chunks become another.
await writeCompiledCatalogue(); // before recording: the bundle reads the compiled catalogue
const mainPath = relative(root, join(nextOutdir, 'main.js')).split(sep).join('/');
const merges = [];
const recorded = await recordLoads({ outdir: nextOutdir, commands: EVERYDAY_COMMANDS });
await dropEsmRequireBanner({ outdir: nextOutdir });
const outputPath = (file) => relative(root, join(nextOutdir, file)).split(sep).join('/');
const everyday = chooseMembers(result.metafile, mainPath, {
  candidates: new Set(recorded.flatMap((command) => command.files.map(outputPath))),
  // Built-ins every everyday command loads anyway: merging a chunk must not add one to a command that had none.
  builtins: recorded.map((command) => command.builtins).reduce((all, builtins) => all.filter((name) => builtins.includes(name))),
});
merges.push({ name: EVERYDAY_CHUNK, members: await mergeChunks({ outdir: nextOutdir, members: everyday, name: EVERYDAY_CHUNK, minify, metafile: result.metafile }) });
const small = chooseMembers(result.metafile, mainPath, { maxBytes: MERGE_MAX_BYTES, settled: new Set(everyday) });
merges.push({ name: SHARED_CHUNK, members: await mergeChunks({ outdir: nextOutdir, members: small, name: SHARED_CHUNK, minify, metafile: result.metafile }) });
// `LOOP_RUNTIME_METAFILE=/tmp/meta.json node scripts/build-cli.js`: esbuild's metafile (before the merges) and the merges.
if (process.env.LOOP_RUNTIME_METAFILE) await writeFile(process.env.LOOP_RUNTIME_METAFILE, JSON.stringify({ ...result.metafile, merges, recorded }));
await writeFile(join(nextOutdir, 'packages.json'), `${JSON.stringify(bundledPackages(result.metafile, merges), null, 1)}\n`);
// Last: the bundle becomes CommonJS, file for file (scripts/to-commonjs.js), so Node never starts its ESM loader.
await convertToCommonJs({ outdir: nextOutdir, minify });
await rm(outdir, { recursive: true, force: true });
await rename(nextOutdir, outdir);
// `node scripts/build-cli.js --analyze`: what each chunk holds, biggest first.
if (process.argv.includes('--analyze')) console.log(await analyzeMetafile(result.metafile));

