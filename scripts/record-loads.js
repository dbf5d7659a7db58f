/**
 * `npm run build`, between esbuild's code splitting and the chunk merges (scripts/build-cli.js): which files of
 * the fresh bundle the everyday commands load, recorded by running them.
 *
 * esbuild cannot know which `import()` a command takes on its usual path: `status` can reach 149 chunks through
 * lazy imports and loads 38 of them in a loop-init scaffold. So the build runs each everyday command once, in a
 * fresh loop-init scaffold, with module hooks (scripts/module-loads/) writing down every URL the process loads.
 * What they load becomes one chunk (merge-chunks.js): a command then loads few files, and few bytes it does not
 * need. A path not taken here still works; its modules load from their own chunks.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { COLD_COMMANDS, scaffold } from './bench-cold.js';

const run = promisify(execFile);
const recorder = join(import.meta.dirname, 'module-loads', 'record.mjs');

/** The commands whose loads make the everyday chunk: those `npm run bench` holds to 1.5× `node -e 0`, but `--version` (main.js alone). */
export const EVERYDAY_COMMANDS = COLD_COMMANDS.filter((command) => command.target === 1.5 && command.args[0] !== '--version').map((command) => command.args);

/**
 * Runs `commands` with the bundle in `outdir` (its `main.js`) in a fresh loop-init scaffold. Returns, per command,
 * the bundle files it loaded (names within `outdir`) and the Node built-ins it loaded.
 *
 * @example
 * ```js
 * await recordLoads({ outdir: 'dist/cli.next', commands: [['status']] });
 * // [{ args: ['status'], files: ['main.js', 'chunk-2RNP6MIM.js', …], builtins: ['node:fs', …] }]
 * ```
 */
export async function recordLoads({ outdir, commands }) {
  const repo = scaffold();
  const logs = await mkdtemp(join(tmpdir(), 'loop-runtime-loads-'));
  const main = pathToFileURL(join(outdir, 'main.js')).href;
  const prefix = pathToFileURL(outdir).href + '/';
  // The user's own environment, as `npm run bench` measures it: no colour, no CI progress lines.
  const env = { ...process.env, NO_COLOR: '1', CI: '' };
  try {
    return await Promise.all(
      commands.map(async (args, index) => {
        const log = join(logs, `${index}.txt`);
        const entry = `const { main } = await import(${JSON.stringify(main)}); process.exitCode = await main(process.argv.slice(1));`;
        try {
          await run(process.execPath, ['--import', recorder, '--input-type=module', '--eval', entry, ...args], { cwd: repo, env: { ...env, LOOP_RUNTIME_LOAD_LOG: log } });
        } catch (error) {
          throw new Error(`recording what \`loop-runtime ${args.join(' ')}\` loads failed (the bundle in ${outdir} does not run): ${error.stderr || error.message}`);
        }
        const urls = [...new Set((await readFile(log, 'utf8')).trim().split('\n'))];
        return {
          args,
          files: urls.filter((url) => url.startsWith(prefix)).map((url) => url.slice(prefix.length)),
          builtins: urls.filter((url) => url.startsWith('node:')),
        };
      }),
    );
  } finally {
    await Promise.all([rm(repo, { recursive: true, force: true }), rm(logs, { recursive: true, force: true })]);
  }
}
