import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectPackageManager, detectVerifyCommands } from './detect-verify.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'loop-detect-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const write = (name: string, text: string) => writeFile(join(root, name), text);

describe('detectVerifyCommands', () => {
  it('finds npm test, lint and typecheck scripts', async () => {
    await write('package.json', JSON.stringify({ scripts: { test: 'vitest run', lint: 'eslint .', typecheck: 'tsc --noEmit', build: 'tsc' } }));
    expect(await detectVerifyCommands(root)).toEqual(['npm test', 'npm run lint', 'npm run typecheck']);
  });

  it.each([
    ['pnpm-lock.yaml', ['pnpm test', 'pnpm run lint']],
    ['yarn.lock', ['yarn test', 'yarn run lint']],
    ['bun.lockb', ['bun test', 'bun run lint']],
    ['bun.lock', ['bun test', 'bun run lint']],
    ['package-lock.json', ['npm test', 'npm run lint']],
  ])('runs the scripts with the package manager %s names', async (lockFile, expected) => {
    await write('package.json', JSON.stringify({ scripts: { test: 'jest', lint: 'eslint .' } }));
    await write(lockFile, '');
    expect(await detectVerifyCommands(root)).toEqual(expected);
    expect(await detectPackageManager(root)).toBe(expected[0]?.split(' ')[0]);
  });

  it('prefers pnpm when a pnpm lock file sits next to a stale package-lock.json', async () => {
    await write('package.json', JSON.stringify({ scripts: { test: 'jest' } }));
    await write('package-lock.json', '{}');
    await write('pnpm-lock.yaml', 'lockfileVersion: 9\n');
    expect(await detectVerifyCommands(root)).toEqual(['pnpm test']);
  });

  it("ignores npm's placeholder test script", async () => {
    await write('package.json', JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }));
    expect(await detectVerifyCommands(root)).toEqual([]);
  });

  it('tolerates a broken package.json', async () => {
    await write('package.json', '{ not json');
    expect(await detectVerifyCommands(root)).toEqual([]);
  });

  it('finds pytest from pyproject.toml', async () => {
    await write('pyproject.toml', '[tool.pytest.ini_options]\naddopts = "-q"\n');
    expect(await detectVerifyCommands(root)).toEqual(['pytest -q']);
  });

  it('finds pytest from pytest.ini', async () => {
    await write('pytest.ini', '[pytest]\n');
    expect(await detectVerifyCommands(root)).toEqual(['pytest -q']);
  });

  it('finds go and cargo', async () => {
    await write('go.mod', 'module example.org/x\n');
    await write('Cargo.toml', '[package]\nname = "x"\n');
    expect(await detectVerifyCommands(root)).toEqual(['go test ./...', 'cargo test']);
  });

  it('uses make test when nothing else is found', async () => {
    await write('Makefile', 'build:\n\tcc x.c\n\ntest: build\n\t./run-tests\n');
    expect(await detectVerifyCommands(root)).toEqual(['make test']);
  });

  it('ignores a Makefile without a test target', async () => {
    await write('Makefile', 'build:\n\tcc x.c\n');
    expect(await detectVerifyCommands(root)).toEqual([]);
  });

  it('finds nothing in an empty directory', async () => {
    expect(await detectVerifyCommands(root)).toEqual([]);
  });
});

describe('pytest in the project’s own environment', () => {
  const makeExecutable = async (path: string) => {
    const { chmod, mkdir } = await import('node:fs/promises');
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), '#!/bin/sh\n');
    await chmod(join(root, path), 0o755);
  };

  it.each([['.venv'], ['venv']])('runs pytest as a module of the in-repo %s interpreter', async (venv) => {
    await write('pyproject.toml', '[tool.pytest.ini_options]\n');
    await makeExecutable(`${venv}/bin/python`);
    expect(await detectVerifyCommands(root, { PATH: '' })).toEqual([`${venv}/bin/python -m pytest -q`]);
  });

  it('uses uv or poetry only when both the lock file and the tool are there; else pytest on PATH', async () => {
    await write('pyproject.toml', '[tool.pytest.ini_options]\n');
    await write('uv.lock', '');
    expect(await detectVerifyCommands(root, { PATH: '' })).toEqual(['pytest -q']);
    await makeExecutable('bin/uv');
    expect(await detectVerifyCommands(root, { PATH: join(root, 'bin') })).toEqual(['uv run --frozen --offline pytest -q']);
    await rm(join(root, 'uv.lock'));
    await write('poetry.lock', '');
    await makeExecutable('bin/poetry');
    expect(await detectVerifyCommands(root, { PATH: join(root, 'bin') })).toEqual(['poetry run pytest -q']);
  });
});
