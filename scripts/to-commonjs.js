/**
 * `npm run build`, the last step of the CLI bundle (scripts/build-cli.js): every chunk esbuild split and the
 * merges joined is rewritten from an ES module to a CommonJS one, file for file.
 *
 * Why: a Node 20 process whose entry and modules are all CommonJS never starts the ESM loader, which costs ~4 ms
 * before the first module (an empty `.mjs` against an empty `.cjs`), and each CommonJS file loads without the
 * ESM loader's resolve/link round. esbuild splits only ES modules, so the split is made as ESM and converted
 * here; each file stays one module, so a chunk two commands share is still one instance in a process.
 *
 * - `import()` of a sibling chunk becomes `require()` inside a promise (same namespace names, same laziness);
 *   `import()` of anything else (an installed package, a user's plugin by path) stays a real `import()`.
 * - Static imports of installed packages become `require()`: each one the bundle imports statically is CommonJS or
 *   dual (hono, pg, @dbos-inc/dbos-sdk, @opentelemetry/api), or ES without top-level await (@octokit/rest), which
 *   Node ≥ 20.19 (package.json's engines) loads through require.
 * - Every file starts `"use strict"`, as an ES module is strict; `import.meta.url` / `.filename` / `.dirname`
 *   become the file's own URL, `__filename` and `__dirname`.
 * - `dist/cli/package.json` says `"type": "commonjs"`, since the package itself is `"type": "module"`.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { transform } from 'esbuild';

/** The line build-cli.js's ESM banner adds to each chunk (bundled CommonJS dependencies call `require`); CommonJS has its own. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __loopRuntimeCreateRequire } from 'node:module'; const require = (globalThis[Symbol.for('loop-runtime.require')] ??= __loopRuntimeCreateRequire(import.meta.url));";

/**
 * Rewrites `source` (one ESM chunk of `chunks`, the file names beside it) as CommonJS.
 *
 * @example
 * ```js
 * await chunkToCommonJs('import{a}from"./chunk-A.js";export const b=()=>import("./chunk-B.js");', new Set(['chunk-A.js', 'chunk-B.js']));
 * // '"use strict";…var import_chunk_A=require("./chunk-A.js");const b=()=>Promise.resolve().then(()=>require("./chunk-B.js"));'
 * ```
 */
export async function chunkToCommonJs(source, chunks, { file = 'chunk', minify = {} } = {}) {
  let code = source.startsWith(ESM_REQUIRE_BANNER) ? source.slice(ESM_REQUIRE_BANNER.length) : source;
  code = code.replace(/\bimport\((["'])\.\/([^"']+)\1\)/g, (whole, quote, name) => {
    if (!chunks.has(name)) throw new Error(`${file}: import() of ./${name}, which is not a chunk of this bundle`);
    return `Promise.resolve().then(()=>require(${quote}./${name}${quote}))`;
  });
  const result = await transform(code, {
    format: 'cjs',
    loader: 'js',
    platform: 'node',
    target: 'node20',
    sourcefile: file,
    ...minify,
    define: { 'import.meta.url': '__loopRuntimeFileUrl', 'import.meta.filename': '__filename', 'import.meta.dirname': '__dirname' },
    banner: '"use strict";var __loopRuntimeFileUrl=require("node:url").pathToFileURL(__filename).href;',
    logLevel: 'silent',
  });
  if (/\bimport\.meta\b/.test(result.code)) throw new Error(`${file}: import.meta is left after the CommonJS conversion`);
  return result.code;
}

/**
 * Removes ESM_REQUIRE_BANNER from every chunk in `outdir`: done with the bundle as ESM (after recording, before the
 * merges, which would otherwise carry one copy per member), CommonJS supplies `require` itself.
 */
export async function dropEsmRequireBanner({ outdir }) {
  const files = (await readdir(outdir)).filter((file) => file.endsWith('.js'));
  await Promise.all(
    files.map(async (file) => {
      const path = join(outdir, file);
      const text = await readFile(path, 'utf8');
      if (text.startsWith(ESM_REQUIRE_BANNER)) await writeFile(path, text.slice(ESM_REQUIRE_BANNER.length).replace(/^\n/, ''));
    }),
  );
}

/** Converts every `.js` file in `outdir` to CommonJS in place and marks the directory `"type": "commonjs"`. */
export async function convertToCommonJs({ outdir, minify }) {
  const files = (await readdir(outdir)).filter((file) => file.endsWith('.js'));
  const chunks = new Set(files);
  await Promise.all(
    files.map(async (file) => {
      const path = join(outdir, file);
      await writeFile(path, await chunkToCommonJs(await readFile(path, 'utf8'), chunks, { file, minify }));
    }),
  );
  await writeFile(join(outdir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
}
