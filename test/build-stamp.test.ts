/**
 * `npm test` and `prepare` build only when dist/ is not built from exactly the sources on disk (scripts/build-stamp.js).
 * Run in a scratch project holding this repository's `build`, `prepare`, `typecheck:core`, `lint` and `test` scripts verbatim and its
 * stamp script, with a logging stand-in for every step those scripts name (the build's scripts, tsc, eslint, vitest):
 * so what is proven is the wiring in package.json as well as the stamp, whatever the build's steps become. Every
 * "skips" case has its "builds" twin.
 */
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const execFileAsync = promisify(execFile);
const root = join(import.meta.dirname, '..');
const realScripts = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_'))), NO_COLOR: '1' };

/** The stamp's place in the real scripts: first and last step of the build, and what decides npm test's build. */
const BEGIN = 'node scripts/build-stamp.js begin && ';
const END = ' && node scripts/build-stamp.js end';
const TEST_PREFIX = '(node scripts/build-stamp.js check || npm run build) && ';
/** `prepare` builds the same way: a git dependency's install runs it twice (npm install in the clone, then the pack). */
const PREPARE = 'node scripts/build-stamp.js check || npm run build';

/**
 * The steps a script runs, by name, in order: `node scripts/x.js` is x, `npm run y` is y's steps, a tool is its
 * command name. Each gets a stand-in here, so the build and test scripts run verbatim whatever their steps are.
 */
function stepsOf(script: string): string[] {
  return script.split('&&').flatMap((part) => {
    const words = part.trim().split(/\s+/);
    if (words[0] === 'npm' && words[1] === 'run') return stepsOf(realScripts[words[2]!]!);
    if (words[0] === 'node') return [/^scripts\/(.+)\.js$/.exec(words[1]!)![1]!];
    return [words[0]!];
  });
}
const BUILD = stepsOf(realScripts['build']!.slice(BEGIN.length, -END.length));
const TAIL = stepsOf(realScripts['test']!.slice(TEST_PREFIX.length));

/**
 * A stand-in for a build step: logs its name and writes dist/<name>.out from src/index.ts. The last step also obeys
 * two flag files (not build inputs): one makes it fail, one makes it edit a source after the others read it, as a
 * person saving a file mid-build would.
 */
const STEP = (name: string, last: boolean) => `import fs from 'node:fs';
fs.appendFileSync('log.txt', ${JSON.stringify(`${name}\n`)});
${last ? "if (fs.existsSync('fail-build')) process.exit(1);" : ''}
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync(${JSON.stringify(`dist/${name}.out`)}, fs.readFileSync('src/index.ts'));
${last ? "if (fs.existsSync('edit-during-build')) { fs.writeFileSync('src/index.ts', fs.readFileSync('edit-during-build')); fs.rmSync('edit-during-build'); }" : ''}
`;
const INPUTS: Record<string, string> = {
  'src/index.ts': 'export const a = 1;\n',
  'src/index.test.ts': 'test\n',
  'src/server/public/app.css': 'body {}\n',
  'backends/mock/index.ts': 'export const b = 2;\n',
  'registry.yaml': 'patterns: []\n',
  'tsconfig.json': '{}\n',
  'tsconfig.build.json': '{}\n',
  'package-lock.json': '{ "lockfileVersion": 3 }\n',
};

let project: string;

async function npm(script: string): Promise<{ code: number; stdout: string; stderr: string; log: string[] }> {
  await writeFile(join(project, 'log.txt'), '');
  let result: { code: number; stdout: string; stderr: string };
  try {
    const { stdout, stderr } = await execFileAsync('npm', ['run', '--silent', script], { cwd: project, env });
    result = { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    result = { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
  return { ...result, log: (await readFile(join(project, 'log.txt'), 'utf8')).split('\n').filter(Boolean) };
}

const BUILT = [...BUILD, ...TAIL];
const SKIPPED = TAIL;
const edit = (path: string, text: string) => writeFile(join(project, path), text);

/** The stamp script's own verdict, without npm: 0 = fresh (the build is skipped), 1 = stale, with the reason. */
async function check(): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await execFileAsync(process.execPath, ['scripts/build-stamp.js', 'check'], { cwd: project, env });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'build-stamp-'));
  await mkdir(join(project, 'scripts'));
  await mkdir(join(project, 'node_modules', '.bin'), { recursive: true });
  await copyFile(join(root, 'scripts', 'build-stamp.js'), join(project, 'scripts', 'build-stamp.js'));
  const scripts = { build: realScripts['build'], prepare: realScripts['prepare'], 'typecheck:core': realScripts['typecheck:core'], lint: realScripts['lint'], test: realScripts['test'] };
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'stamped', version: '1.0.0', type: 'module', scripts }, null, 2));
  for (const [index, name] of BUILD.entries()) {
    if (name.startsWith('build-') || name === 'clean-dist') await writeFile(join(project, 'scripts', `${name}.js`), STEP(name, index === BUILD.length - 1));
  }
  for (const tool of new Set([...BUILD, ...TAIL].filter((name) => !name.startsWith('build-') && name !== 'clean-dist'))) {
    await writeFile(join(project, 'node_modules', '.bin', tool), `#!/bin/sh\necho ${tool} >> log.txt\n`);
    await chmod(join(project, 'node_modules', '.bin', tool), 0o755);
  }
  for (const [path, text] of Object.entries(INPUTS)) {
    await mkdir(join(project, path, '..'), { recursive: true });
    await edit(path, text);
  }
});

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

// The cases run in order; each leaves dist/ built from INPUTS, as the first one leaves it.
describe('npm test and the build stamp', () => {
  it('is wired into package.json: the build begins and ends with the stamp, and npm test builds only when check fails', () => {
    expect(realScripts['build']!.startsWith(BEGIN) && realScripts['build']!.endsWith(END), realScripts['build']).toBe(true);
    expect(realScripts['test']!.startsWith(TEST_PREFIX), realScripts['test']).toBe(true);
    expect(realScripts['prepare']).toBe(PREPARE);
    expect(BUILD.length).toBeGreaterThan(1);
    expect(BUILD).not.toContain('build-stamp');
  });

  it('builds when there is no stamp (a fresh clone), then skips the build for the same sources', async () => {
    const first = await npm('test');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Building: no readable dist/build-stamp.json.');
    expect(first.log).toEqual(BUILT);
    const second = await npm('test');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('dist/ is built from these sources');
    expect(second.log).toEqual(SKIPPED);
  });

  it("prepare builds when there is no stamp and skips the build the second time, as a git dependency's install runs it", async () => {
    await rm(join(project, 'dist', 'build-stamp.json'));
    const first = await npm('prepare');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Building: no readable dist/build-stamp.json.');
    expect(first.log).toEqual(BUILD);
    const second = await npm('prepare');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('dist/ is built from these sources');
    expect(second.log).toEqual([]);
  });

  it.each([
    ['a source file', 'src/index.ts', 'export const a = 2;\n'],
    ['a console asset', 'src/server/public/app.css', 'body { color: red }\n'],
    ['a backend', 'backends/mock/index.ts', 'export const b = 3;\n'],
    ['registry.yaml', 'registry.yaml', 'patterns: [x]\n'],
    ['a tsconfig', 'tsconfig.build.json', '{ "compilerOptions": {} }\n'],
    ['the lockfile', 'package-lock.json', '{ "lockfileVersion": 3, "packages": {} }\n'],
    ['a build script', `scripts/${BUILD.find((name) => name.startsWith('build-'))}.js`, '// edited\n'],
  ])('is stale after an edit to %s, and fresh again when the bytes are back', async (_what, path, text) => {
    const before = await readFile(join(project, path), 'utf8');
    await edit(path, text);
    expect(await check()).toEqual({ code: 1, stdout: 'Building: the sources changed since the last build.\n' });
    await edit(path, before);
    expect((await check()).code).toBe(0);
  });

  it('is stale with a new source file, and not with an edited test file, which the build does not read', async () => {
    await edit('src/added.ts', 'export {};\n');
    expect((await check()).code).toBe(1);
    await rm(join(project, 'src', 'added.ts'));
    await edit('src/index.test.ts', 'test, edited\n');
    expect((await check()).code).toBe(0);
    await edit('src/index.test.ts', INPUTS['src/index.test.ts']!);
  });

  it('is stale when dist/ changed after the build: a file edited, or one deleted; npm test then builds', async () => {
    const [first, second] = (await readdir(join(project, 'dist'))).filter((name) => name.endsWith('.out'));
    const output = join('dist', first!);
    const built = await readFile(join(project, output), 'utf8');
    await edit(output, 'tampered');
    expect(await check()).toEqual({ code: 1, stdout: 'Building: dist/ changed since the last build.\n' });
    await edit(output, built);
    expect((await check()).code).toBe(0);
    await rm(join(project, 'dist', second!));
    expect((await check()).code).toBe(1);
    expect((await npm('test')).log).toEqual(BUILT);
  });

  it('is stale with an unreadable or foreign stamp', async () => {
    await edit('dist/build-stamp.json', '{ "format": 1, "inputs": ');
    expect((await check()).stdout).toBe('Building: no readable dist/build-stamp.json.\n');
    await edit('dist/build-stamp.json', '{ "format": 99, "inputs": "x", "outputs": "y" }');
    expect((await check()).stdout).toContain('is not a stamp this script wrote');
    expect((await npm('build')).log).toEqual(BUILD);
    expect((await check()).code).toBe(0);
  });

  it('leaves no stamp when the build fails, so the next npm test builds again', async () => {
    await edit('fail-build', '');
    expect((await npm('build')).code).not.toBe(0);
    await rm(join(project, 'fail-build'));
    expect((await check()).stdout).toBe('Building: no readable dist/build-stamp.json.\n');
    expect((await npm('build')).code).toBe(0);
    expect((await check()).code).toBe(0);
  });

  it('stamps the sources as they were when the build began: an edit during the build is built next time', async () => {
    await edit('edit-during-build', 'export const a = 9;\n');
    expect((await npm('build')).code).toBe(0);
    expect(await check()).toEqual({ code: 1, stdout: 'Building: the sources changed since the last build.\n' });
    await edit('src/index.ts', INPUTS['src/index.ts']!);
    expect((await check()).code).toBe(0);
  });
});
