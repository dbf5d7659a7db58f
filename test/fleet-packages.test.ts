import { execa } from 'execa';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));
const built = pathToFileURL(resolve('dist/src/adapters/postgres/fleet-packages.js')).href;
const errors = pathToFileURL(resolve('dist/src/core/errors.js')).href;

/**
 * Runs loadFleetModule in a real Node process (vitest's resolver would find the packages from the project root)
 * on a module outside this project that imports `name`: Node's own "cannot find package" error.
 */
async function loadFromNowhere(name: string): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-packages-'));
  dirs.push(dir);
  await writeFile(join(dir, 'probe.mjs'), `import '${name}';\n`);
  const script = `
    const { loadFleetModule } = await import(${JSON.stringify(built)});
    const { exitCodeFor, isLoopRuntimeError } = await import(${JSON.stringify(errors)});
    const error = await loadFleetModule(() => import(${JSON.stringify(pathToFileURL(join(dir, 'probe.mjs')).href)}), 'LOOP_RUNTIME_DATABASE_URL is set').catch((caught) => caught);
    console.log(JSON.stringify({ coded: isLoopRuntimeError(error), code: error.code, exit: exitCodeFor(error), message: error.message, fix: error.fix }));`;
  const { stdout } = await execa(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('loadFleetModule (built, in Node)', () => {
  it.each(['pg', '@dbos-inc/dbos-sdk'])('a missing %s is a precondition naming the packages to install (exit 3), not a require stack', async (name) => {
    const result = await loadFromNowhere(name);
    expect(result).toMatchObject({ coded: true, code: 'PRECONDITION_FAILED', exit: 3 });
    expect(result['message']).toContain(`The Postgres store needs the package "${name}", which is not installed (LOOP_RUNTIME_DATABASE_URL is set).`);
    expect(result['fix']).toContain('npm install pg @dbos-inc/dbos-sdk');
  });

  it('passes any other missing module through unchanged', async () => {
    expect(await loadFromNowhere('left-pad-not-a-fleet-package')).toMatchObject({ coded: false, code: 'ERR_MODULE_NOT_FOUND' });
  });
});
