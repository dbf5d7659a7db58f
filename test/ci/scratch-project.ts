/**
 * A scratch repository that depends on *this checkout* of loop-runtime the
 * way a team's repository would, installable with no network:
 *
 * - `npm pack --ignore-scripts` of this checkout (its built `dist/`) gives a
 *   tarball; the scratch package.json names it as a `file:` devDependency.
 * - npm cannot resolve loop-runtime's own dependencies offline from a bare
 *   spec (this machine's npm cache holds their tarballs but not the registry
 *   metadata), so the scratch package-lock.json is written here: every
 *   production dependency with the version and integrity from this
 *   checkout's own package-lock.json and its registry tarball URL. `npm ci
 *   --offline` then needs only tarballs, which the cache has after any
 *   `npm ci` of this checkout. If one is missing npm fails with ENOTCACHED:
 *   run `npm ci` in this checkout once.
 * - The real `loop-init` scaffolds the methodology files; LOOP.md front
 *   matter configures the loops under test.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const CHECKOUT = join(import.meta.dirname, '..', '..');
export const GIT_IDENTITY = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.invalid', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.invalid' };

interface LockEntry {
  version: string;
  integrity?: string;
  dev?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  [key: string]: unknown;
}

/** Packs this checkout into `directory`; returns the tarball's absolute path. */
export async function packCheckout(directory: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', directory, CHECKOUT], { cwd: directory });
  return join(directory, stdout.trim().split('\n').pop()!);
}

/** package.json and package-lock.json for a project whose only dependency is the tarball (a path relative to the project). */
export async function offlineManifest(tarball: string): Promise<{ manifest: object; lock: object }> {
  const ours = JSON.parse(await readFile(join(CHECKOUT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const lock = JSON.parse(await readFile(join(CHECKOUT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const spec = `file:${tarball}`;
  const manifest = { name: 'scratch-team-repo', private: true, devDependencies: { 'loop-runtime': spec } };
  const packages: Record<string, unknown> = {
    '': { name: 'scratch-team-repo', devDependencies: { 'loop-runtime': spec } },
    'node_modules/loop-runtime': {
      version: ours.version,
      resolved: spec,
      dev: true,
      license: ours.license,
      dependencies: ours.dependencies,
      peerDependencies: ours.peerDependencies,
      peerDependenciesMeta: ours.peerDependenciesMeta,
      bin: ours.bin,
      engines: ours.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev || entry.devOptional || entry.peer) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const resolved = `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${entry.version}.tgz`;
    packages[path] = { ...entry, resolved, dev: true };
  }
  return { manifest, lock: { name: 'scratch-team-repo', lockfileVersion: 3, requires: true, packages } };
}

/**
 * Creates `origin.git` (bare) and a work repository pushed to it, scaffolded
 * by loop-init, with `loopSettings` as LOOP.md's `loop-runtime.loops`.
 */
export async function scratchRepository(root: string, tarball: string, loopSettings: string): Promise<{ origin: string; work: string }> {
  const origin = join(root, 'origin.git');
  const work = join(root, 'work');
  await mkdir(work, { recursive: true });
  const git = (...args: string[]) => run('git', args, { cwd: work, env: { ...process.env, ...GIT_IDENTITY } });
  await run('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  await git('init', '--quiet', '--initial-branch=main');
  await run(join(CHECKOUT, 'node_modules', '.bin', 'loop-init'), [work, '--pattern', 'daily-triage', '--tool', 'claude'], { cwd: work });
  const loopMd = await readFile(join(work, 'LOOP.md'), 'utf8');
  await writeFile(join(work, 'LOOP.md'), `---\nloop-runtime:\n  loops:\n${loopSettings}---\n${loopMd}`);
  // The tarball is committed inside the repository (a path outside it is refused by `ci init`: no runner has it).
  await mkdir(join(work, 'vendor'));
  await copyFile(tarball, join(work, 'vendor', basename(tarball)));
  const { manifest, lock } = await offlineManifest(`vendor/${basename(tarball)}`);
  await writeFile(join(work, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(join(work, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  await writeFile(join(work, '.gitignore'), 'node_modules/\n');
  await mkdir(join(work, 'src'));
  await writeFile(join(work, 'src', 'example.ts'), 'export const answer = 42;\n');
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'initial');
  await git('remote', 'add', 'origin', origin);
  await git('push', '--quiet', 'origin', 'main');
  return { origin, work };
}

/** A fresh shallow, single-branch clone of `origin`: what actions/checkout gives a job (fetch-depth 1). */
export async function checkout(origin: string, directory: string): Promise<string> {
  await run('git', ['clone', '--quiet', '--depth=1', `file://${origin}`, directory]);
  return directory;
}
