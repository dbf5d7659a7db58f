#!/usr/bin/env node
/**
 * What each command's kilobytes are: runs the built CLI once per command under the tests' module hooks
 * (test/fixtures/module-loads/record.mjs), keeps the dist/lib files it loaded, and joins them with the bundle's sizes
 * (dist/lib/meta.json, written by scripts/build-bundle.js: each output's bytes, each module's bytes before
 * minification) into the bytes each source module or bundled package contributes. Loading and compiling those bytes is where an everyday command's start goes (docs/design/build.md
 * "Cold start"), so this names what to make lazy. Prints numbers, asserts nothing; not timed.
 *
 * `node scripts/bundle-weight.js [top]` after `npm run build` (top: modules listed per command, default 12).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COLD_COMMANDS, scaffold } from './bench-cold.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'loop-runtime.js');
const recorder = join(root, 'test', 'fixtures', 'module-loads', 'record.mjs');
const PACKAGE = /node_modules\/((?:@[^/]+\/)?[^/]+)\//;

/** A source module's name in the table: our path, or a bundled package's name (its modules summed). */
function ownerOf(input) {
  return PACKAGE.exec(input)?.[1] ?? input;
}

/**
 * Bytes of dist/lib each command loads, total and by module.
 *
 * @example
 * ```js
 * const rows = bundleWeight({ repo });
 * // [{ command: 'status', files: 4, empty: 2, bytes: 151_400, modules: [{ module: 'src/cli/commands/index.ts', bytes: 15_200 }, …] }, …]
 * ```
 */
export function bundleWeight({ repo, commands = COLD_COMMANDS } = {}) {
  const meta = JSON.parse(readFileSync(join(root, 'dist', 'lib', 'meta.json'), 'utf8'));
  const outputs = new Map(Object.entries(meta.outputs).map(([path, output]) => [basename(path), output]));
  const scratch = mkdtempSync(join(tmpdir(), 'loop-bundle-weight-'));
  const log = join(scratch, 'loads');
  const env = { ...process.env, NO_COLOR: '1', CI: '', LOOP_RUNTIME_LOAD_LOG: log };
  try {
    return commands.map(({ label, args }) => {
      writeFileSync(log, '');
      const result = spawnSync(process.execPath, ['--import', recorder, bin, ...args], { cwd: repo, env, stdio: 'ignore' });
      if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status} under the module recorder`);
      const files = [...new Set(readFileSync(log, 'utf8').split('\n').filter((url) => url.startsWith('file:') && url.includes('/dist/lib/')))].map((url) => basename(url));
      const byModule = new Map();
      let bytes = 0;
      for (const file of files) {
        const output = outputs.get(file);
        if (!output) throw new Error(`dist/lib/${file} is not in dist/lib/meta.json. To fix: run npm run build.`);
        bytes += output.bytes;
        for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
          const owner = ownerOf(input);
          byModule.set(owner, (byModule.get(owner) ?? 0) + bytesInOutput);
        }
      }
      const modules = [...byModule].map(([module, size]) => ({ module, bytes: size })).sort((a, b) => b.bytes - a.bytes);
      // Files holding no module of ours or of a package: an entry that re-exports a chunk group (cli.js) and rolldown's
      // runtime helpers. Each is a file to load for (nearly) nothing.
      const empty = files.filter((file) => Object.keys(outputs.get(file).inputs).length === 0).length;
      return { command: label, files: files.length, empty, bytes, modules };
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const kilobytes = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** Per command: its total, then its `top` heaviest modules. */
export function formatBundleWeight(rows, top = 12) {
  return rows
    .map((row) => [
      `${row.command}: ${kilobytes(row.bytes)} in ${row.files} files of dist/lib (${row.empty} holding no module: re-exporting entries, rolldown's helpers)`,
      ...row.modules.slice(0, top).map(({ module, bytes }) => `  ${kilobytes(bytes).padStart(9)}  ${module}`),
    ].join('\n'))
    .join('\n');
}

/** The report in a fresh loop-init scaffold (what `npm run bench` prints). */
export function bundleWeightReport(top = 12) {
  const repo = scaffold();
  try {
    return formatBundleWeight(bundleWeight({ repo }), top);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(bundleWeightReport(Number(process.argv[2] ?? 12)));
