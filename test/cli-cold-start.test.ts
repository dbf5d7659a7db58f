/**
 * The built CLI loads only what a command uses: `bin/loop-runtime.js` runs dist/lib/cli.js, an entry point of the
 * library's own bundle (scripts/build-bundle.js), and each command's handler is an `import()`
 * (src/cli/commands/index.ts): the everyday commands' in one chunk group, the tick's in another, the rest split by
 * what reaches them. So in a repository the real loop-init scaffolded the everyday commands load no zod, yaml or
 * execa and none of the code that runs a tick. What a process loaded is recorded by
 * module hooks and mapped to sources by dist/lib/modules.json, never timed: speed is `npm run bench`'s business.
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
const recorder = join(import.meta.dirname, 'fixtures', 'module-loads', 'record.mjs');
const HEAVY = ['zod', 'yaml', 'execa'];
/** Packages that run or read git: an everyday command reads files, it starts no git through a library. */
const GIT_LIBRARIES = ['simple-git', 'execa'];
/** Node built-ins a read-only command has no use for: each loads a dozen or more of Node's internal modules. */
const HEAVY_BUILTINS = ['node:crypto', 'node:child_process', 'node:stream'];
/** Our code that runs a tick (engine, agent backends, worktrees) or another entry point (console, fleet). */
const TICK_CODE = ['backends/', 'src/core/engine/', 'src/adapters/workspace/', 'src/server/', 'src/fleet/'];
/** Pure rules `status` shares with the engine on purpose: it shows an open circuit as the engine would decide it. */
const SHARED_WITH_STATUS = ['src/core/engine/circuit-breaker.ts'];
const EVERYDAY: string[][] = [['list'], ['plan', 'daily-triage'], ['status'], ['validate']];
const DRY_RUN = ['run', 'daily-triage', '--level', 'L2', '--dry-run'];
/**
 * Ceilings on the bundle files (dist/lib) each everyday command loads: what it loads today (docs/design/build.md
 * "Cold start" has the counts). Each file is one more the ESM loader reads, parses and links (~0.4 ms of CPU on Node
 * 20), so a module that leaves the build's chunk groups (scripts/build-bundle.js GROUPS), or a new entry point or
 * `import()` on an everyday path, fails here, not only in `npm run bench`. Today (2026-11-28): `--version` 3 (cli.js,
 * the cli group, rolldown's helpers), list, plan, status and validate 4 (and the everyday group).
 */
const MAX_BUNDLE_FILES: Record<string, number> = { '--version': 3, list: 4, plan: 4, status: 4, validate: 4 };
/**
 * Ceilings on the kilobytes of dist/lib each loads (output file sizes from dist/lib/meta.json), ~8% above today's
 * (`--version` 40, the four everyday commands 148: they share one group): loading and compiling them is where an
 * everyday command's start goes, so a static import that drags zod, yaml or the engine into one fails here.
 * `node scripts/bundle-weight.js` names the modules behind them.
 */
const MAX_BUNDLE_KB: Record<string, number> = { '--version': 44, list: 160, plan: 160, status: 160, validate: 160 };
/**
 * The dry run's ceilings, on the same terms (today 6 files, 566 KB): it loads the engine and simple-git, but not
 * zod, the git delivery, the probes or the status report, which a rehearsal never uses (docs/design/build.md).
 */
const MAX_DRY_RUN = { files: 6, kilobytes: 620 };

let scratch: string;
let repo: string;
/** Output file of the bundle → the source modules (ours, and bundled packages' under node_modules/) it holds. */
let bundleModules: Record<string, string[]>;
/** Output file of the bundle → its size in bytes (dist/lib/meta.json). */
let bundleBytes: Record<string, number>;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'cli-cold-start-'));
  repo = join(scratch, 'repo');
  await run('git', ['init', '--quiet', '--initial-branch=main', repo]);
  await run(join(root, 'node_modules', '.bin', 'loop-init'), [repo, '--pattern', 'daily-triage', '--tool', 'claude'], { env: { ...process.env, NO_COLOR: '1' } });
  // Committed, as `npm run bench` does: a dry run needs a base commit.
  const identity = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.invalid', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.invalid' };
  await run('git', ['add', '-A'], { cwd: repo });
  await run('git', ['commit', '-q', '-m', 'loop-init scaffold'], { cwd: repo, env: { ...process.env, ...identity } });
  bundleModules = JSON.parse(await readFile(join(root, 'dist', 'lib', 'modules.json'), 'utf8')) as Record<string, string[]>;
  const meta = JSON.parse(await readFile(join(root, 'dist', 'lib', 'meta.json'), 'utf8')) as { outputs: Record<string, { bytes: number }> };
  bundleBytes = Object.fromEntries(Object.entries(meta.outputs).map(([path, output]) => [basename(path), output.bytes]));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface Loaded {
  /** Packages the process loaded a module of, installed or bundled. */
  packages: string[];
  /** Files of the bundle it loaded. */
  bundleFiles: string[];
  /** Their size in kilobytes. */
  bundleKb: number;
  /** Our source modules those files hold (`src/cli/main.ts`, `backends/mock/index.ts`). */
  sources: string[];
  /** Files of ours it loaded from anywhere but the bundle (tsc's dist/src): a second copy. */
  elsewhere: string[];
  builtins: string[];
  /** How many `require` functions files of dist/lib made (createRequire calls: our own modules' and any the bundle made). */
  requireMade: number;
}

let runs = 0;
const PACKAGE = /node_modules\/((?:@[^/]+\/)?[^/]+)\//;

/**
 * What the built CLI loads for `args` in `cwd`, run once: the cases ask different questions of the same command
 * (heavy packages, built-ins, bundle files, kilobytes), and a command loads the same modules every time it runs in
 * the same directory, so each (command, directory) is one process (~40 started before, ~11 now).
 */
const loads = new Map<string, Promise<Loaded>>();
function loadedBy(args: string[], cwd = repo): Promise<Loaded> {
  const key = JSON.stringify([cwd, args]);
  let loaded = loads.get(key);
  if (!loaded) loads.set(key, (loaded = recordLoads(args, cwd)));
  return loaded;
}

/** Runs the built CLI under module hooks and sorts what it loaded. */
async function recordLoads(args: string[], cwd: string): Promise<Loaded> {
  // One log per process: the hooks append.
  const log = join(scratch, `loads-${++runs}.txt`);
  await run(process.execPath, ['--import', recorder, bin, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', CI: '', LOOP_RUNTIME_LOAD_LOG: log } });
  const lines = (await readFile(log, 'utf8')).trim().split('\n');
  const requireMade = lines.filter((line) => line.startsWith('createRequire ') && line.includes('/dist/lib/')).length;
  const urls = [...new Set(lines.filter((line) => !line.startsWith('createRequire ')))];
  const bundleFiles = urls.filter((url) => url.includes('/dist/lib/')).map((url) => basename(url));
  const inputs = bundleFiles.flatMap((file) => bundleModules[file] ?? []);
  const packages = new Set<string>();
  for (const path of [...urls, ...inputs]) {
    const name = PACKAGE.exec(path)?.[1];
    if (name) packages.add(name);
  }
  return {
    packages: [...packages].sort(),
    bundleFiles,
    bundleKb: bundleFiles.reduce((sum, file) => sum + (bundleBytes[file] ?? Number.NaN), 0) / 1024,
    sources: inputs.filter((path) => !path.includes('node_modules/')),
    elsewhere: urls.filter((url) => url.startsWith('file:') && url.includes('/dist/') && !url.includes('/dist/lib/') && !url.includes('/node_modules/')),
    builtins: urls.filter((url) => url.startsWith('node:')).sort(),
    requireMade,
  };
}

describe('cold start of the built CLI', () => {
  it.each([['--version'], ['help'], ['list'], ['plan', 'daily-triage']])('`%s` in a loop-init scaffold loads no zod, yaml or execa', async (...args) => {
    const loaded = await loadedBy(args);
    expect(loaded.packages.filter((name) => HEAVY.includes(name))).toEqual([]);
    expect(loaded.sources).toContain('src/cli/main.ts');
  });

  // validate checks a report-only loop's preconditions without git (the git runner loads only for a loop that
  // acts); status reads spend and pauses without the attempt ledger (zod) or a file lock (proper-lockfile).
  it.each([['validate'], ['status']])('`%s` in a loop-init scaffold loads no zod, yaml, execa or proper-lockfile', async (...args) => {
    const loaded = await loadedBy(args);
    expect(loaded.packages.filter((name) => [...HEAVY, 'proper-lockfile'].includes(name))).toEqual([]);
  });

  it.each(EVERYDAY)('`%s` loads no node:crypto, child_process or stream, and none of the code that runs a tick', async (...args) => {
    const loaded = await loadedBy(args);
    expect(loaded.builtins.filter((name) => HEAVY_BUILTINS.includes(name))).toEqual([]);
    expect(loaded.sources.filter((path) => TICK_CODE.some((part) => path.startsWith(part)) && !SHARED_WITH_STATUS.includes(path))).toEqual([]);
  });

  // The twin of the two checks above: a dry run does load the engine, the mock backend and a child process, so
  // the URLs and names they look for are the ones a process really loads. It loads no zod (the worktree manifest is
  // checked by hand): `metrics`, which parses outcome records with zod, is the twin that finds zod when it loads.
  it('`run --dry-run` loads the engine, the mock backend, proper-lockfile and node:child_process, but no zod, execa, yaml or @opentelemetry/api', async () => {
    const loaded = await loadedBy(DRY_RUN);
    expect(loaded.sources.some((path) => path.startsWith('src/core/engine/'))).toBe(true);
    expect(loaded.sources.some((path) => path.startsWith('backends/mock/'))).toBe(true);
    expect(loaded.builtins).toContain('node:child_process');
    expect(loaded.packages).toContain('proper-lockfile'); // bundled, and installed
    // The rehearsal runs git through node:child_process; @opentelemetry/api loads only with a registered SDK.
    expect(loaded.packages.filter((name) => ['zod', 'execa', 'yaml', '@opentelemetry/api'].includes(name))).toEqual([]);
    expect((await loadedBy(['metrics', 'daily-triage'])).packages).toContain('zod');
  });

  // One copy of the code: the CLI runs the bundle `exports` names, never tsc's JavaScript (kept for the
  // repository's scripts, left out of the package), and the module defining LoopRuntimeError is one of its files.
  it('the CLI runs only the library\'s bundle (dist/lib)', async () => {
    const loaded = await loadedBy(DRY_RUN);
    expect(loaded.elsewhere).toEqual([]);
    expect(loaded.sources).toContain('src/core/errors.ts');
    expect(loaded.bundleFiles).toContain('cli.js');
  });

  it.each(EVERYDAY)('`%s` loads no git library (simple-git, execa)', async (...args) => {
    const loaded = await loadedBy(args);
    expect(loaded.packages.filter((name) => GIT_LIBRARIES.includes(name))).toEqual([]);
  });

  // The twin: `reset --mock` lists the loop's mock branches through git (simple-git), so the names and the mapping
  // from bundle files to packages do find simple-git when a command loads it.
  it('`reset <id> --mock` does load simple-git', async () => {
    const loaded = await loadedBy(['reset', 'daily-triage', '--mock']);
    expect(loaded.packages).toContain('simple-git');
  });

  it.each([['--version'], ...EVERYDAY])('`%s` loads no more bundle files than its ceiling', async (...args) => {
    const loaded = await loadedBy(args);
    expect(loaded.bundleFiles.length).toBeLessThanOrEqual(MAX_BUNDLE_FILES[args[0]!]!);
  });

  // The twin: the count is of files really loaded — a dry run also loads the tick group and simple-git's chunk.
  it('`run --dry-run` loads more bundle files than any everyday ceiling', async () => {
    const loaded = await loadedBy(DRY_RUN);
    expect(loaded.bundleFiles.length).toBeGreaterThan(Math.max(...Object.values(MAX_BUNDLE_FILES)));
  });

  it.each([['--version'], ...EVERYDAY])('`%s` loads no more kilobytes of the bundle than its ceiling', async (...args) => {
    const loaded = await loadedBy(args);
    expect(loaded.bundleKb).toBeGreaterThan(0);
    expect(loaded.bundleKb).toBeLessThanOrEqual(MAX_BUNDLE_KB[args[0]!]!);
  });

  it('`run --dry-run` loads no more bundle files and kilobytes than its ceilings', async () => {
    const loaded = await loadedBy(DRY_RUN);
    expect(loaded.bundleFiles.length).toBeLessThanOrEqual(MAX_DRY_RUN.files);
    expect(loaded.bundleKb).toBeLessThanOrEqual(MAX_DRY_RUN.kilobytes);
  });

  // The twin: the sizes are of files really loaded — a dry run (simple-git, the engine) weighs several times
  // any everyday ceiling.
  it('`run --dry-run` loads more kilobytes than any everyday ceiling', async () => {
    const loaded = await loadedBy(DRY_RUN);
    expect(loaded.bundleKb).toBeGreaterThan(2 * Math.max(...Object.values(MAX_BUNDLE_KB)));
  });

  // A dry run's delivery is local-only, so the git delivery (push, pull requests, the delivery ledger and its schema)
  // loads on a delivery's first call (wiring.ts's lazyGitDelivery), not with the runtime. The twin: a real mock tick at
  // L2, in a clone of the scaffold (it writes its run log), asks for open proposals before acting and loads it.
  it('`run --dry-run` loads no git delivery; a real tick that acts does', async () => {
    const GIT_DELIVERY = 'src/adapters/delivery/git-delivery.ts';
    expect((await loadedBy(DRY_RUN)).sources).not.toContain(GIT_DELIVERY);
    const clone = join(scratch, 'clone');
    await run('git', ['clone', '--quiet', repo, clone]);
    expect((await loadedBy(['run', 'daily-triage', '--level', 'L2', '--backend', 'mock'], clone)).sources).toContain(GIT_DELIVERY);
  });

  // A tick needs the rehearsal backend's name, not the outcome record's schemas (nor, through them, the config's):
  // the dry run loads neither module. The twin: `metrics`, which reads outcome records, loads both.
  const OUTCOME_SCHEMAS = ['src/core/outcomes/outcome-record.ts', 'src/core/config/schemas.ts'];
  it('`run --dry-run` loads neither the outcome record nor the config schemas; `metrics` loads both', async () => {
    const dryRun = await loadedBy(DRY_RUN);
    expect(dryRun.sources).toContain('src/core/outcomes/rehearsal-backend.ts');
    expect(dryRun.sources.filter((path) => OUTCOME_SCHEMAS.includes(path))).toEqual([]);
    const metrics = await loadedBy(['metrics', 'daily-triage']);
    expect(metrics.sources).toEqual(expect.arrayContaining(OUTCOME_SCHEMAS));
  });

  // Bundled CommonJS (picocolors, graceful-fs, cross-spawn…) gets the Node built-ins it require()s as imports
  // (rolldown's esmExternalRequirePlugin, scripts/build-bundle.js): no output file makes a `require` (createRequire)
  // when it loads, as rolldown's own `require` polyfill would in the file every command loads. `status` makes none; the
  // dry run, whose bundled graceful-fs requires fs, constants and stream, loads node:constants (only graceful-fs asks
  // for it) and makes exactly one: the secret rules' own, for their installed preset — the twin that shows the count
  // sees the calls.
  it('bundled CommonJS gets its Node built-ins as imports: no output file makes a `require` of its own', async () => {
    expect((await loadedBy(['status'])).requireMade).toBe(0);
    const dryRun = await loadedBy(DRY_RUN);
    expect(dryRun.packages).toContain('graceful-fs');
    expect(dryRun.builtins).toContain('node:constants');
    expect(dryRun.sources).toContain('src/adapters/secret-rules/secretlint-rules.ts');
    expect(dryRun.requireMade).toBe(1);
  });

  // `import { z } from 'zod'` keeps zod's whole `z` namespace, `z.locales` with it: 64 translations, ~300 KB of the
  // ~580 KB chunk every zod user (the dry run, metrics) loaded, ~20 ms of CPU to read and compile. `import * as z`
  // lets the bundler drop them. The twin: English, which zod installs at load, is still bundled.
  it('the bundle holds zod without its translations, English only', () => {
    const locales = [...new Set(Object.values(bundleModules).flat())].filter((path) => path.includes('node_modules/zod/') && path.includes('/locales/'));
    expect(locales).toContain('node_modules/zod/v4/locales/en.js');
    expect(locales.filter((path) => !path.endsWith('/locales/en.js'))).toEqual([]);
  });

  it('--version loads the command-line parser and nothing else installed', async () => {
    expect((await loadedBy(['--version'])).packages).toEqual(['cac']);
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
