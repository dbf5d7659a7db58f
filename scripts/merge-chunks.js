/**
 * `npm run build`, after esbuild's code splitting (scripts/build-cli.js): merges chunks into one file, twice —
 * first every chunk the everyday commands were recorded loading (scripts/record-loads.js), then the remaining
 * small ones.
 *
 * esbuild makes one chunk per distinct set of entry points (each command, each lazy `import()`) that reach a
 * module, so ~140 lazy imports leave ~100 chunks, most under 2 KB. Each file a command loads costs time whatever
 * its size, and each byte it loads is compiled: one chunk of what a command runs is cheapest.
 *
 * Which chunks merge (all checked from the metafile, none guessed):
 * - the candidates given (the everyday merge), or any chunk up to `maxBytes` (the small-chunk merge); never
 *   `main.js` nor anything `main.js` loads at start-up (`--version` stays as it is);
 * - a chunk a caller loads with `import()` may merge: the caller reads the names it knows from the merged chunk's
 *   namespace, which holds them unchanged (no module here enumerates a namespace; backends and plugins that are
 *   checked by their exports are not in the bundle);
 * - closed under static imports: a member imports only other members, start-up chunks, chunks an earlier merge
 *   took, and the Node built-ins given (by default those Node itself loaded at start-up, `STARTUP_BUILTINS`), so
 *   loading the merged chunk loads nothing a member did not already load, and no import cycle can appear;
 * - one binding per name: the merged chunk re-exports every member's names by name, so importers keep their
 *   import lists and only the file name changes. Two members may export one name only when both resolve to the
 *   chunk defining it (esbuild's facade for an `import()` re-exports its target under the same names); on any
 *   other clash the chunk that defines the names wins over the one importing them.
 *
 * Members' top-level code is definitions (functions, constants, lazy CommonJS wrappers; none imports zod, yaml or
 * execa, which the closure rule keeps out of the small-chunk merge and the recording keeps out of the everyday
 * one), so loading a merged chunk evaluates little that a command did not already need, and a lazily imported
 * module that merged is merely loaded earlier; `test/cli-cold-start.test.ts` holds that the everyday commands
 * still load no zod, yaml or execa.
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
 * - `maxBytes`: only chunks up to this size (the shared merge of small chunks); no limit by default.
 * - `candidates`: only these output paths (the everyday merge: what the everyday commands were recorded loading).
 * - `settled`: output paths already merged elsewhere; a member may import them (they load no later than it would).
 * - `builtins`: the Node built-ins a member may import (default: those Node loaded at start-up).
 *
 * @example
 * ```js
 * chooseMembers(result.metafile, 'dist/cli.next/main.js', { maxBytes: 8000 }); // ['dist/cli.next/chunk-2ZK6RN3P.js', …]
 * ```
 */
export function chooseMembers(metafile, mainPath, { maxBytes = Infinity, candidates, settled = new Set(), builtins = STARTUP_BUILTINS } = {}) {
  const outputs = metafile.outputs;
  const startup = startupChunks(outputs, mainPath);
  const members = new Set(
    Object.keys(outputs)
      .filter((path) => isChunk(path) && !startup.has(path) && !settled.has(path) && outputs[path].bytes <= maxBytes && (candidates?.has(path) ?? true))
      .sort(),
  );
  const importsOnlyAllowed = (path) =>
    staticImports(outputs[path]).every((entry) => (entry.external ? builtins.includes(entry.path) : members.has(entry.path) || startup.has(entry.path) || settled.has(entry.path)));
  for (let changed = true; changed; ) {
    changed = false;
    // Closed under static imports.
    for (const path of [...members]) {
      if (!importsOnlyAllowed(path)) {
        members.delete(path);
        changed = true;
      }
    }
    // Distinct export names, unless two members export the same binding: esbuild's facade for an `import()`
    // re-exports, under the same names, what the chunk it imports defines, and merged beside it the names are that
    // one binding. Any other clash keeps a chunk out, taken dependencies first: the one defining the names stays
    // (dropped instead, the definitions would keep everything importing them out as well).
    const owner = new Map();
    for (const path of dependencyOrder(outputs, members)) {
      const sources = outputs[path].exports.map((name) => [name, definingChunk(outputs, path, name)]);
      if (sources.some(([name, source]) => owner.has(name) && owner.get(name) !== source)) {
        members.delete(path);
        changed = true;
        continue;
      }
      for (const [name, source] of sources) owner.set(name, source);
    }
  }
  return [...members].sort();
}

/**
 * The chunk that defines `name` as `path` exports it: `path` itself, unless `path` holds no module of its own (a
 * facade) and re-exports `name` from a chunk it imports.
 */
function definingChunk(outputs, path, name, seen = new Set()) {
  const output = outputs[path];
  if (Object.keys(output.inputs).length > 0 || seen.has(path)) return path;
  seen.add(path);
  const from = staticImports(output).find((entry) => !entry.external && outputs[entry.path].exports.includes(name));
  return from ? definingChunk(outputs, from.path, name, seen) : path;
}

/**
 * Which names the merged chunk re-exports from which member (member path → names), each name once. A name two
 * members export is taken once only if both resolve to the chunk defining it (a facade beside its definition);
 * two bindings under one name throw, as a merge chooseMembers picked never has.
 */
export function reExports(metafile, members) {
  const outputs = metafile.outputs;
  const source = new Map();
  const byMember = new Map();
  for (const path of [...members].sort()) {
    for (const exportName of outputs[path].exports) {
      const defining = definingChunk(outputs, path, exportName);
      if (source.has(exportName)) {
        if (source.get(exportName) !== defining) throw new Error(`cannot merge ${basename(path)}: another member exports "${exportName}" as a different binding`);
        continue;
      }
      source.set(exportName, defining);
      byMember.set(path, [...(byMember.get(path) ?? []), exportName]);
    }
  }
  return byMember;
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
 * Bundles `members` (chunk files in `outdir`, named as `metafile` names them) into `outdir/<name>`, points every
 * other chunk at it and deletes the members. Returns the member file names. Throws if the merged chunk lacks a
 * name a member exported.
 */
export async function mergeChunks({ outdir, members, name, minify, metafile }) {
  const memberFiles = new Set(members.map((path) => basename(path)));
  if (memberFiles.size === 0) return [];
  // Each name re-exported once, by name: importers keep their import lists, and no `export *` can make a name
  // ambiguous and drop it without a word (CommonJS would then hand its importer `undefined`).
  const names = reExports(metafile, members);
  const entry = [...members].sort().map((path) => (names.has(path) ? `export { ${names.get(path).join(', ')} } from "./${basename(path)}";` : `import "./${basename(path)}";`));
  await build({
    stdin: { contents: entry.join('\n'), resolveDir: outdir, sourcefile: 'merged-chunks-entry.js', loader: 'js' },
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
