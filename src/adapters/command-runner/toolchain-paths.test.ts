import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dependencyPaths, toolchainPaths } from './toolchain-paths.js';

let base: string;
let home: string;
let checkout: string;
let opt: string;

async function executable(path: string): Promise<void> {
  await writeFile(path, '#!/bin/sh\n');
  await chmod(path, 0o755);
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'loop-toolchains-')));
  home = join(base, 'home');
  checkout = join(home, 'src', 'app');
  opt = join(base, 'opt');
  for (const directory of ['.local/bin', '.local/share/keyrings', 'bin', '.cargo/bin', '.rustup/toolchains', 'go/pkg/mod', 'go/src/other-project', 'src/app/node_modules/.bin', 'src/app/.venv/bin']) {
    await mkdir(join(home, directory), { recursive: true });
  }
  await mkdir(join(opt, 'node-v20', 'bin'), { recursive: true });
  await mkdir(join(opt, 'python-3.12', 'bin'), { recursive: true });
  await executable(join(opt, 'node-v20', 'bin', 'node'));
  await executable(join(opt, 'python-3.12', 'bin', 'python3.12'));
  await executable(join(home, '.local', 'bin', 'python3'));
  await executable(join(home, '.cargo', 'bin', 'cargo'));
  await executable(join(home, 'bin', 'go'));
  // A link on PATH to a toolchain elsewhere: its real prefix is bound too.
  await symlink(join(opt, 'node-v20', 'bin', 'node'), join(home, 'bin', 'node'));
  await writeFile(join(checkout, '.venv', 'pyvenv.cfg'), `home = ${join(opt, 'python-3.12', 'bin')}\n`);
  await symlink(join(opt, 'python-3.12', 'bin', 'python3.12'), join(checkout, '.venv', 'bin', 'python3'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe('toolchainPaths', () => {
  const input = () => ({
    env: { PATH: [join(checkout, 'node_modules', '.bin'), join(home, 'bin'), join(home, '.local', 'bin'), join(home, '.cargo', 'bin'), 'relative/bin'].join(':') },
    home,
    protectedRoots: [checkout],
  });

  it('binds PATH directories, toolchain prefixes, rustup and the go module cache', async () => {
    const paths = await toolchainPaths(input());
    expect(paths).toEqual(expect.arrayContaining([join(home, 'bin'), join(home, '.local', 'bin'), join(home, '.cargo'), join(home, '.rustup'), join(opt, 'node-v20'), join(home, 'go', 'pkg', 'mod')]));
  });

  it('never binds the home, a shared home directory, GOPATH itself, a relative PATH entry or anything of the checkout', async () => {
    const paths = await toolchainPaths(input());
    for (const refused of [home, join(home, '.local'), join(home, 'go'), join(home, 'src'), checkout, join(checkout, 'node_modules', '.bin'), '/']) {
      expect(paths).not.toContain(refused);
    }
    expect(paths.some((path) => path.includes('relative'))).toBe(false);
  });
});

describe('dependencyPaths', () => {
  it("binds a venv at the checkout's own path with its base interpreter's prefix; not the checkout", async () => {
    const binds = [
      { source: join(checkout, '.venv'), target: '/w/.venv' },
      { source: join(checkout, 'node_modules'), target: '/w/node_modules' },
    ];
    const paths = await dependencyPaths(binds, { env: {}, home, protectedRoots: [checkout] });
    expect(paths).toEqual([join(checkout, '.venv'), join(opt, 'python-3.12')]);
  });
});
