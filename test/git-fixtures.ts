/**
 * Real temporary git repositories for the git workspace and delivery tests:
 * a repository with a few files, a bare "remote", a fake `gh` on PATH that
 * records its arguments, and a byte-for-byte fingerprint of a directory.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

export const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test Human',
  GIT_AUTHOR_EMAIL: 'human@example.test',
  GIT_COMMITTER_NAME: 'Test Human',
  GIT_COMMITTER_EMAIL: 'human@example.test',
  GIT_CONFIG_NOSYSTEM: '1',
};

export function sh(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const created: string[] = [];

export async function tempDir(prefix = 'loop-git-', parent = tmpdir()): Promise<string> {
  const directory = await mkdtemp(join(parent, prefix));
  created.push(directory);
  return directory;
}

export async function cleanupTempDirs(): Promise<void> {
  await Promise.all(created.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
}

export async function writeFiles(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

/** A repository on branch main with one commit of `files`. */
export async function makeRepo(files: Record<string, string | Buffer> = { 'src/example.ts': 'export const answer = 42;\n', 'README.md': '# demo\n' }): Promise<string> {
  const root = await tempDir('loop-repo-');
  sh(root, ['init', '--quiet', '--initial-branch=main']);
  sh(root, ['config', 'user.name', 'Test Human']);
  sh(root, ['config', 'user.email', 'human@example.test']);
  await writeFiles(root, files);
  sh(root, ['add', '--all']);
  sh(root, ['commit', '--quiet', '-m', 'initial']);
  return root;
}

/** A bare repository added as `origin` to `root`, with main pushed. */
export async function addBareRemote(root: string): Promise<string> {
  const bare = await tempDir('loop-remote-');
  sh(bare, ['init', '--quiet', '--bare', '--initial-branch=main']);
  sh(root, ['remote', 'add', 'origin', bare]);
  sh(root, ['push', '--quiet', 'origin', 'main']);
  return bare;
}

/**
 * A fake `gh` executable: appends its arguments (one JSON array per line) to
 * `log`, prints a PR URL for `pr create`, `[]` for `pr list`.
 */
export async function fakeGh(): Promise<{ bin: string; log: string; calls: () => Promise<string[][]> }> {
  const bin = await tempDir('loop-gh-');
  const log = join(bin, 'gh-calls.jsonl');
  const script = `#!/usr/bin/env node
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + '\\n');
if (args[0] === 'pr' && args[1] === 'create') {
  const n = fs.readFileSync(${JSON.stringify(log)}, 'utf8').split('\\n').filter((l) => l.includes('"create"')).length;
  process.stdout.write('https://github.com/acme/demo/pull/' + n + '\\n');
} else if (args[0] === 'pr' && args[1] === 'list') {
  process.stdout.write('[]\\n');
} else if (args[0] === '--version') {
  process.stdout.write('gh version 2.0.0 (fake)\\n');
}
`;
  await writeFile(join(bin, 'gh'), script);
  await chmod(join(bin, 'gh'), 0o755);
  return {
    bin,
    log,
    calls: async () => {
      const text = await readFile(log, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string[]);
    },
  };
}

/** sha256 over every file, link and directory under `root` (including .git), by relative path. */
export async function fingerprint(root: string): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  const walk = async (directory: string): Promise<void> => {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      const key = relative(root, path);
      const info = await lstat(path);
      if (entry.isDirectory()) {
        result.set(`${key}/`, `dir ${info.mode}`);
        await walk(path);
      } else if (entry.isSymbolicLink()) {
        result.set(key, `link ${await readlink(path)}`);
      } else {
        result.set(key, `${info.mode} ${createHash('sha256').update(await readFile(path)).digest('hex')}`);
      }
    }
  };
  await walk(root);
  return result;
}
