/**
 * `npm run build`, after esbuild's code splitting (scripts/build-cli.js): merges the small shared chunks into one.
 *
 * esbuild makes one chunk per distinct set of entry points (each command, each lazy `import()`) that reach a
 * module, so ~140 lazy imports leave ~80 chunks under 2 KB. On Node 20 each module the ESM loader loads costs
 * ~0.3 ms (resolve, an asynchronous read, compile, link) whatever its size: `plan` loaded 24 chunks for ~60 KB.
 * One shared chunk of the small ones costs one load and ~1 ms of parsing instead.
 *
 * Which chunks merge (all checked from the metafile, none guessed):
 * - at most `maxBytes`, not `main.js` nor anything `main.js` loads at start-up (`--version` stays as it is);
 * - a chunk a caller loads with `import()` may merge: the caller reads the names it knows from the merged chunk's
 *   namespace, which holds them unchanged (no module here enumerates a namespace; backends and plugins that are
 *   checked by their exports are far above the size limit);
 * - closed under static imports: a member imports only other members, start-up chunks and the Node built-ins
 *   Node itself loaded at start-up (`STARTUP_BUILTINS`), so
 *   loading the merged chunk loads nothing a member did not already load, and no import cycle can appear;
 * - export names distinct across members (the merged chunk re-exports every member's names unchanged, so
 *   importers keep their import lists and only the file name changes); on a clash the chunk that defines the
 *   names wins over the one importing them (esbuild's facade for an `import()`).
 *
 * Members' top-level code is definitions (functions, constants, lazy CommonJS wrappers; none imports zod, yaml or
 * execa, which the closure rule keeps out), so loading the merged chunk evaluates little that a command did not
 * already need, and a lazily imported module that merged is merely loaded earlier; `test/cli-cold-start.test.ts` holds that the
 * everyday commands still load no zod, yaml or execa.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { build } from 'esbuild';

const isChunk = (path) => path.endsWith('.js');

/**
 * Node built-ins a member may import: those Node's own start-up has already loaded (node:crypto alone loads ~17
 * internal modules; a command that never needed it must not pay for it because a neighbour in the merge did).
 */
export const STARTUP_BUILTINS = ['node:fs', 'node:fs/promises', 'node:path', 'node:url'];

function staticImports(output) {
  return output.imports.filter((entry) => entry.kind === 'import-statement');
}

/** Chunks `main.js` loads before any command runs (static imports, transitively). */
function startupChunks(outputs, mainPath) {
  const seen = new Set([mainPath]);
  const queue = [mainPath];
  while (queue.length > 0) {
    for (const entry of staticImports(outputs[queue.shift()])) {
      if (!entry.external && !seen.has(entry.path)) {
        seen.add(entry.path);
        queue.push(entry.path);
      }
    }
  }
  return seen;
}

/**
 * The chunks to merge (output paths as the metafile names them), in a stable order.
 *
 * @example
 * ```js
 * chooseMembers(result.metafile, 'dist/cli.next/main.js', 4000); // ['dist/cli.next/chunk-2ZK6RN3P.js', …]
 * ```
 */
export function chooseMembers(metafile, mainPath, maxBytes) {
  const outputs = metafile.outputs;
  const startup = startupChunks(outputs, mainPath);
  const members = new Set(
    Object.keys(outputs)
      .filter((path) => isChunk(path) && !startup.has(path) && outputs[path].bytes <= maxBytes)
      .sort(),
  );
  const importsOnlyAllowed = (path) =>
    staticImports(outputs[path]).every((entry) => (entry.external ? STARTUP_BUILTINS.includes(entry.path) : members.has(entry.path) || startup.has(entry.path)));
  for (let changed = true; changed; ) {
    changed = false;
    // Closed under static imports.
    for (const path of [...members]) {
      if (!importsOnlyAllowed(path)) {
        members.delete(path);
        changed = true;
      }
    }
    // Distinct export names. A clash is mostly a facade esbuild made for an `import()` re-exporting the chunk it
    // imports, so chunks are taken dependencies first: the one defining the names stays, the facade stays out
    // (dropped instead, the definitions would keep everything importing them out as well).
    const owner = new Map();
    for (const path of dependencyOrder(outputs, members)) {
      if (outputs[path].exports.some((name) => owner.has(name))) {
        members.delete(path);
        changed = true;
        continue;
      }
      for (const name of outputs[path].exports) owner.set(name, path);
    }
  }
  return [...members].sort();
}

/** `paths` ordered so that a chunk comes after every chunk of `paths` it imports statically (then by name). */
function dependencyOrder(outputs, paths) {
  const order = [];
  const seen = new Set();
  const visit = (path) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const entry of staticImports(outputs[path])) if (!entry.external && paths.has(entry.path)) visit(entry.path);
    order.push(path);
  };
  for (const path of [...paths].sort()) visit(path);
  return order;
}

/**
 * Bundles `members` (chunk files in `outdir`) into `outdir/<name>`, points every other chunk at it and deletes
 * the members. Returns the member file names.
 */
export async function mergeChunks({ outdir, members, name, minify }) {
  const memberFiles = new Set(members.map((path) => basename(path)));
  if (memberFiles.size === 0) return [];
  await build({
    stdin: { contents: [...memberFiles].map((file) => `export * from "./${file}";`).join('\n'), resolveDir: outdir, sourcefile: 'merged-chunks-entry.js', loader: 'js' },
    outfile: join(outdir, name),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    ...minify,
    plugins: [
      {
        name: 'merge-members-only',
        setup(context) {
          // Members are bundled; every other chunk stays an import of its file, Node built-ins stay built-ins.
          context.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === 'entry-point') return undefined;
            if (args.path.startsWith('./') && memberFiles.has(args.path.slice(2))) return undefined;
            return { path: args.path, external: true };
          });
        },
      },
    ],
    logLevel: 'warning',
  });
  const pattern = new RegExp(`"\\./(${[...memberFiles].map((file) => file.replace(/[.]/g, '\\.')).join('|')})"`, 'g');
  const { readdir } = await import('node:fs/promises');
  for (const file of await readdir(outdir)) {
    if (!isChunk(file) || memberFiles.has(file) || file === name) continue;
    const path = join(outdir, file);
    const text = await readFile(path, 'utf8');
    const rewritten = text.replace(pattern, `"./${name}"`);
    if (rewritten !== text) await writeFile(path, rewritten);
  }
  await Promise.all([...memberFiles].map((file) => rm(join(outdir, file))));
  return [...memberFiles];
}
