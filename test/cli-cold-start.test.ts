/**
 * The built CLI loads only what a command uses (`scripts/build-cli.js`): in a
 * repository the real loop-init scaffolded, the everyday commands load no
 * chunk holding zod, yaml or execa, and the compiled catalogue is the YAML's.
 * What a process loaded is recorded by module hooks, never timed: speed is
 * `npm run bench`'s business.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRegistry } from '../src/core/config/load-registry.js';
import { COMPILED_CATALOGUE, type CompiledCatalogue } from '../src/project/load-catalogue.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'loop-runtime.js');
const recorder = join(root, 'scripts', 'module-loads', 'record.mjs');
const HEAVY = ['zod', 'yaml', 'execa'];
/** Node built-ins a read-only command has no use for: each loads a dozen or more of Node's internal modules. */
const HEAVY_BUILTINS = ['node:crypto', 'node:child_process', 'node:stream'];

let scratch: string;
let repo: string;
let chunkPackages: Record<string, string[]>;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'cli-cold-start-'));
  repo = join(scratch, 'repo');
  await run('git', ['init', '--quiet', '--initial-branch=main', repo]);
  await run(join(root, 'node_modules', '.bin', 'loop-init'), [repo, '--pattern', 'daily-triage', '--tool', 'claude'], { env: { ...process.env, NO_COLOR: '1' } });
  // Committed, as `npm run bench` does: a dry run needs a base commit.
  const identity = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.invalid', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.invalid' };
  await run('git', ['add', '-A'], { cwd: repo });
  await run('git', ['commit', '-q', '-m', 'loop-init scaffold'], { cwd: repo, env: { ...process.env, ...identity } });
  chunkPackages = JSON.parse(await readFile(join(root, 'dist', 'cli', 'packages.json'), 'utf8')) as Record<string, string[]>;
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Runs the built CLI and returns the bundled packages the modules it loaded hold, whether it loaded tsc's dist/src, and how many of the bundle's files it loaded. */
async function packagesLoadedBy(args: string[]): Promise<{ packages: string[]; distSrc: boolean; bundleFiles: number; builtins: string[] }> {
  const log = join(scratch, `loads-${args.join('-')}.txt`);
  await run(process.execPath, ['--import', recorder, bin, ...args], { cwd: repo, env: { ...process.env, NO_COLOR: '1', CI: '', LOOP_RUNTIME_LOAD_LOG: log } });
  const urls = (await readFile(log, 'utf8')).trim().split('\n');
  const packages = new Set<string>();
  for (const url of urls) {
    for (const name of chunkPackages[basename(url)] ?? []) packages.add(name);
    const unbundled = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (unbundled) packages.add(unbundled[1]!);
  }
  return {
    packages: [...packages].sort(),
    distSrc: urls.some((url) => url.includes('/dist/src/')),
    bundleFiles: new Set(urls.filter((url) => url.includes('/dist/cli/'))).size,
    builtins: [...new Set(urls.filter((url) => url.startsWith('node:')))].sort(),
  };
}

describe('cold start of the built CLI', () => {
  it.each([['--version'], ['help'], ['list'], ['plan', 'daily-triage']])('`%s` in a loop-init scaffold loads no zod, yaml or execa', async (...args) => {
    const loaded = await packagesLoadedBy(args);
    expect(loaded.packages.filter((name) => HEAVY.includes(name))).toEqual([]);
    expect(loaded.distSrc).toBe(false);
  });

  // validate checks a report-only loop's preconditions without git (the git runner loads only for a loop that
  // acts); status reads spend and pauses without the attempt ledger (zod) or a file lock (proper-lockfile).
  it.each([['validate'], ['status']])('`%s` in a loop-init scaffold loads no zod, yaml, execa or proper-lockfile', async (...args) => {
    const loaded = await packagesLoadedBy(args);
    expect(loaded.packages.filter((name) => [...HEAVY, 'proper-lockfile'].includes(name))).toEqual([]);
    expect(loaded.distSrc).toBe(false);
  });

  // Each file loaded costs time whatever its size, and each byte is compiled: the build merges what these commands
  // were recorded loading into one chunk (scripts/record-loads.js, merge-chunks.js). Without the merges `list`
  // loaded 18 files of the bundle, `plan` 25 and `status` 38; merging every small chunk into one, 3 to 5 files,
  // one of them 157 KB of which `list` ran less than a third. Now: main.js, two chunks main.js loads, and the
  // everyday chunk.
  it.each([['list'], ['plan', 'daily-triage'], ['status'], ['validate']])('`%s` loads at most 4 files of the bundle and no node:crypto, child_process or stream', async (...args) => {
    const loaded = await packagesLoadedBy(args);
    expect(loaded.bundleFiles).toBeLessThanOrEqual(4);
    expect(loaded.builtins.filter((name) => HEAVY_BUILTINS.includes(name))).toEqual([]);
  });

  // status goes through the runtime (openRuntime, the stores, the report): it loaded 12 files of the bundle, two of
  // them facades esbuild made because the runtime and the file stores were also imported statically elsewhere.
  // Now the runtime imports the project loader and the report statically, and nothing imports them both ways.
  it('`status` loads no more files of the bundle than `list`', async () => {
    const [status, list] = [await packagesLoadedBy(['status']), await packagesLoadedBy(['list'])];
    expect(status.bundleFiles).toBeLessThanOrEqual(list.bundleFiles);
  });

  // The rehearsal runs git through node:child_process and needs no other process: execa stays unloaded, and so
  // does @opentelemetry/api while no OpenTelemetry SDK is registered (every span would be a no-op). (node:stream
  // does load: graceful-fs, under proper-lockfile, requires it.)
  it('`run --dry-run` loads no execa, yaml or @opentelemetry/api', async () => {
    const loaded = await packagesLoadedBy(['run', 'daily-triage', '--level', 'L2', '--dry-run']);
    expect(loaded.packages.filter((name) => ['execa', 'yaml', '@opentelemetry/api'].includes(name))).toEqual([]);
    expect(loaded.distSrc).toBe(false);
  });

  // The bundle and bin/ are CommonJS (scripts/to-commonjs.js): starting the ESM loader at all costs ~4 ms.
  it.each([['--version'], ['list'], ['plan', 'daily-triage'], ['status'], ['validate']])('`%s` never starts Node\'s ESM loader', async (...args) => {
    const probe = join(scratch, `esm-${args.join('-')}.txt`);
    const preload = join(import.meta.dirname, 'fixtures', 'esm-loader-probe.cjs');
    await run(process.execPath, ['--require', preload, bin, ...args], { cwd: repo, env: { ...process.env, NO_COLOR: '1', CI: '', LOOP_RUNTIME_ESM_PROBE: probe } });
    expect(await readFile(probe, 'utf8')).toBe('not started');
  });

  it('--version loads the command-line parser and nothing else of ours', async () => {
    expect((await packagesLoadedBy(['--version'])).packages).toEqual(['cac']);
  });

  it('the compiled catalogue is registry.yaml as the loader parses it', async () => {
    const yaml = await readFile(join(root, 'registry.yaml'), 'utf8');
    const compiled = JSON.parse(await readFile(join(root, COMPILED_CATALOGUE), 'utf8')) as CompiledCatalogue;
    const parsed = loadRegistry(yaml, 'registry.yaml');
    if (!parsed.ok) throw new Error('registry.yaml does not load');
    expect(compiled.source).toBe(yaml);
    expect(compiled.registry).toStrictEqual(JSON.parse(JSON.stringify(parsed.value)));
    expect(compiled.registry).toEqual(parsed.value);
  });
});
