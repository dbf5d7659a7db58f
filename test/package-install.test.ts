/**
 * The package as a user installs it: `npm pack` of this project installed with production dependencies only, and
 * the same project as a git dependency (what a `github:` specifier does: clone, install, `prepare` = the build, pack).
 * In a git repository beside it: `npx loop-runtime --version`, the dry run, and a backend plugin that throws the
 * `LoopRuntimeError` it imported from 'loop-runtime' — exit 3 only if the CLI and the library are one copy of the
 * code (two copies made it exit 1: `instanceof` failed across them). Its twin, a plugin throwing a plain Error, exits 1.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const execFileAsync = promisify(execFile);
const root = join(import.meta.dirname, '..');
const version = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const IDENTITY = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.invalid', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.invalid' };
/** npm's own settings from an enclosing `npm test` (npm_config_*, the lifecycle's npm_package_*) must not steer the installs. */
const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_'))), ...IDENTITY, NO_COLOR: '1', CI: '' };
const INSTALL = ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'];
// Installs fetch what the npm cache lacks and a git dependency builds with all dev dependencies: minutes on a busy machine.
const INSTALL_TIMEOUT = 20 * 60_000;

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(command: string, args: string[], cwd: string): Promise<Exit> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

async function mustRun(command: string, args: string[], cwd: string): Promise<string> {
  const result = await run(command, args, cwd);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code} in ${cwd}:\n${result.stderr.slice(-4000)}`);
  return result.stdout;
}

const PLUGIN = `import { LoopRuntimeError } from 'loop-runtime';
export function createBackend() {
  throw new LoopRuntimeError('CONFIG_INVALID', 'my-backend has no model configured.', { fix: 'set model: in LOOP.md.' });
}
`;
const PLAIN_ERROR_PLUGIN = `export function createBackend() {
  throw new Error('plain-backend broke.');
}
`;

/**
 * A git repository that is also the npm project installing loop-runtime: a plugin in it resolves 'loop-runtime'
 * from its node_modules, as a user's `backend: ./my-backend.js` does.
 */
async function makeApp(directory: string, dependency: string): Promise<string> {
  await mkdir(directory, { recursive: true });
  // No `allowScripts`: npm 11 runs a git dependency's `prepare` while it packs the clone, before its install-script
  // gate (which then warns about a `prepare` that already ran), so a user needs nothing beyond `npm install`.
  await writeFile(join(directory, 'package.json'), `${JSON.stringify({ name: 'app', private: true, type: 'module' }, null, 2)}\n`);
  await mustRun('npm', [...INSTALL, dependency], directory);
  await writeFile(join(directory, '.gitignore'), 'node_modules/\n');
  await writeFile(join(directory, 'my-backend.js'), PLUGIN);
  await writeFile(join(directory, 'plain-backend.js'), PLAIN_ERROR_PLUGIN);
  await writeFile(join(directory, 'LOOP.md'), '---\nloop-runtime:\n  backend: ./my-backend.js\n  loops:\n    daily-triage: {}\n---\n# Loop\n');
  await mustRun('git', ['init', '--quiet', '--initial-branch=main'], directory);
  await mustRun('git', ['add', '-A'], directory);
  await mustRun('git', ['commit', '--quiet', '-m', 'app'], directory);
  return directory;
}

/**
 * The installed bin as npm linked it (`node_modules/.bin/loop-runtime`, what `npx` resolves to). `npx` itself is run
 * once per install, for `--version`: each npx start is a whole npm CLI (~0.4 s of CPU) in front of the same bin.
 */
const loopRuntime = (app: string, args: string[]) => run(join(app, 'node_modules', '.bin', 'loop-runtime'), args, app);

/** What every installed copy must do. */
async function expectWorkingInstall(app: string): Promise<void> {
  const printed = await run('npx', ['--no-install', 'loop-runtime', '--version'], app);
  expect(printed.code).toBe(0);
  expect(printed.stdout).toContain(`loop-runtime/${version}`);

  const dryRun = await loopRuntime(app, ['run', 'daily-triage', '--level', 'L2', '--dry-run']);
  expect(dryRun.stderr).toBe('');
  expect(dryRun.code).toBe(0);
  expect(await mustRun('git', ['status', '--porcelain'], app)).toBe('');

  const plugin = await loopRuntime(app, ['run', 'daily-triage', '--level', 'L2']);
  expect(plugin.stderr).toContain('my-backend has no model configured. To fix: set model: in LOOP.md.');
  expect(plugin.code).toBe(3);

  const plain = await loopRuntime(app, ['run', 'daily-triage', '--level', 'L2', '--backend', './plain-backend.js']);
  expect(plain.stderr).toContain('plain-backend broke.');
  expect(plain.code).toBe(1);
}

let scratch: string;
/**
 * Both installs start at once: the tarball's (~10 s) and the git dependency's (minutes: a clone, every dev
 * dependency, the build, a pack). One after the other they were the suite's longest file; npm's cache is safe to share.
 */
let fromTarball: Promise<{ app: string; files: string[] }>;
let fromGit: Promise<string>;

/** The promise, with its rejection also observed now: a failure surfaces in the describe that awaits it, not as an unhandled rejection first. */
function started<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'package-install-'));
  fromTarball = started(
    (async () => {
      // The build is `npm test`'s first step; --ignore-scripts packs that build instead of running it again.
      const packed = JSON.parse(await mustRun('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], root)) as Array<{ filename: string; files: Array<{ path: string }> }>;
      const app = await makeApp(join(scratch, 'from-tarball'), join(scratch, packed[0]!.filename));
      return { app, files: packed[0]!.files.map((file) => file.path) };
    })(),
  );
  fromGit = started(
    (async () => {
      // A clone of this repository's committed HEAD, installed by a git URL: npm clones it, installs its dev
      // dependencies (`prepare` is the build, which needs tsc), runs `prepare`, and packs the result.
      const clone = join(scratch, 'clone');
      await mustRun('git', ['clone', '--quiet', root, clone], scratch);
      return makeApp(join(scratch, 'from-git'), `git+file://${clone}`);
    })(),
  );
});

afterAll(async () => {
  // Both installs finish (or fail) before their directory goes, whichever describe ran.
  await Promise.allSettled([fromTarball, fromGit]);
  await rm(scratch, { recursive: true, force: true });
}, INSTALL_TIMEOUT);

describe('the packed package installed with production dependencies only', () => {
  let files: string[];
  let app: string;

  beforeAll(async () => {
    ({ app, files } = await fromTarball);
  }, INSTALL_TIMEOUT);

  it('holds one copy of the code: the bundle in dist/lib, tsc\'s declarations, and a bin that imports the bundle', async () => {
    const code = files.filter((path) => path.endsWith('.js') && !path.startsWith('src/server/public/'));
    expect(code.filter((path) => !path.startsWith('dist/lib/') && path !== 'bin/loop-runtime.js')).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['bin/loop-runtime.js', 'dist/lib/cli.js', 'dist/lib/index.js', 'dist/src/index.d.ts', 'dist/backends/index.d.ts', 'dist/catalogue.json']));
    expect(await readFile(join(app, 'node_modules', 'loop-runtime', 'bin', 'loop-runtime.js'), 'utf8')).toContain("from '../dist/lib/cli.js'");
  });

  it('runs --version, the dry run, and a plugin\'s LoopRuntimeError as exit 3 (a plain Error: 1)', async () => {
    await expectWorkingInstall(app);
  }, INSTALL_TIMEOUT);

  it('serves the library entry points from the same files the CLI runs', async () => {
    const script = "const a = await import('loop-runtime'); const b = await import('loop-runtime/backends'); console.log(import.meta.resolve('loop-runtime'), typeof a.LoopRuntimeError, typeof b.resolveBackend);";
    const printed = await mustRun(process.execPath, ['--input-type=module', '-e', script], app);
    expect(printed.trim()).toBe(`${new URL(`file://${join(app, 'node_modules', 'loop-runtime', 'dist', 'lib', 'index.js')}`).href} function function`);
  });

  it('serves the subpaths the root leaves out: schemas, helpers, file adapters, test doubles (and the root does not)', async () => {
    const script = [
      "const root = await import('loop-runtime');",
      "const [schemas, helpers, adapters, testing] = await Promise.all(['schemas', 'helpers', 'adapters', 'testing'].map((path) => import(`loop-runtime/${path}`)));",
      "console.log(typeof schemas.PatternSchema, typeof helpers.checkGate, typeof adapters.FileStateWriter, typeof testing.MemoryWorkspace, typeof root.PatternSchema, typeof root.MemoryWorkspace);",
    ].join(' ');
    const printed = await mustRun(process.execPath, ['--input-type=module', '-e', script], app);
    expect(printed.trim()).toBe('object function function function undefined undefined');
  });
});

describe('the project as a git dependency (a github: install builds it with `prepare`)', () => {
  let app: string;

  beforeAll(async () => {
    app = await fromGit;
  }, INSTALL_TIMEOUT);

  it('builds on install and runs --version, the dry run, and a plugin\'s LoopRuntimeError as exit 3', async () => {
    expect(await readFile(join(app, 'node_modules', 'loop-runtime', 'dist', 'catalogue.json'), 'utf8')).toContain('daily-triage');
    await expectWorkingInstall(app);
  }, INSTALL_TIMEOUT);
});
