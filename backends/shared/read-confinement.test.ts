/**
 * The openai/ollama read tools in a real linked worktree (outside the checkout, as
 * GitWorkspace makes it), and in the checkout itself (triage's root): every way
 * out — `..`, absolute paths, links that lead out or into `.git`, the `.git`
 * file's pointer — is refused, and secret files are never read, listed by glob or
 * grepped. Each refusal has its allowed twin in the same call set.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globTool, grepTool, readFileTool } from './read-tools.js';
import { resolveInside, secretPathReason } from './path-guard.js';
import type { ToolContext } from './tool-types.js';

const CANARY = 'canary-read-tools-8d2f61';
let base: string;
let checkout: string;
let worktree: string;
const reader = (root: string): ToolContext => ({ root, permissions: { write: false, execute: false }, commandTimeoutMs: 10_000 });

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'loop-read-confine-')));
  checkout = path.join(base, 'checkout');
  await mkdir(path.join(checkout, 'src'), { recursive: true });
  await writeFile(path.join(checkout, 'src', 'app.ts'), 'export const app = 1;\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: checkout, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'add', '.');
  git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  git('config', 'loop.secret', CANARY);
  await writeFile(path.join(checkout, '.env'), `API_TOKEN=${CANARY}\n`);
  await mkdir(path.join(checkout, 'config', 'secrets'), { recursive: true });
  await writeFile(path.join(checkout, 'config', 'secrets', 'db.txt'), `${CANARY}\n`);
  worktree = path.join(base, 'state', 'worktrees', 'a1');
  git('worktree', 'add', '--quiet', '-b', 'loop/a1', worktree, 'HEAD');
  // Links an agent's command could have made in its worktree.
  await symlink('.git', path.join(worktree, 'git-link'));
  await symlink('..', path.join(worktree, 'up'));
  await symlink(path.join(checkout, '.env'), path.join(worktree, 'env-link'));
  await symlink('.git', path.join(checkout, 'git-link'));
  await symlink('.env', path.join(checkout, 'env-alias'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe('read tools in a linked worktree', () => {
  it.each([
    ['the .git file (its gitdir points at the checkout)', '.git'],
    ['the .git file by absolute path', () => path.join(worktree, '.git')],
    ['a link to the .git file', 'git-link'],
    ['.. to the checkout', '../../../checkout/.env'],
    ['a link to ..', 'up/../checkout/.env'],
    ['a link that leads to the checkout', 'env-link'],
    ["the checkout's .env by absolute path", () => path.join(checkout, '.env')],
  ])('refuses %s', async (_name, requested) => {
    const result = await readFileTool.run({ path: typeof requested === 'function' ? requested() : requested }, reader(worktree));
    expect(result.ok).toBe(false);
    expect(result.content).not.toContain(CANARY);
    expect(result.content).not.toContain('gitdir');
  });

  it('the allowed twin: reads a file of the worktree, also by absolute path', async () => {
    expect((await readFileTool.run({ path: 'src/app.ts' }, reader(worktree))).content).toContain('export const app = 1;');
    expect((await readFileTool.run({ path: path.join(worktree, 'src', 'app.ts') }, reader(worktree))).ok).toBe(true);
  });
});

describe("read tools in the checkout (triage's root)", () => {
  it("refuses .git/config, also through a link, and secret files, also through a link", async () => {
    for (const requested of ['.git/config', 'git-link/config', '.env', 'env-alias', 'config/secrets/db.txt']) {
      const result = await readFileTool.run({ path: requested }, reader(checkout));
      expect(result.ok, requested).toBe(false);
      expect(result.content).not.toContain(CANARY);
    }
  });

  it('grep and glob never walk into secret files; the twin: they find the code', async () => {
    const grep = await grepTool.run({ pattern: 'canary|app' }, reader(checkout));
    expect(grep.content).toContain('src/app.ts:1: export const app = 1;');
    expect(grep.content).not.toContain(CANARY);
    expect((await grepTool.run({ pattern: 'canary', path: '.env' }, reader(checkout))).ok).toBe(false);
    const glob = await globTool.run({ pattern: '**/*' }, reader(checkout));
    expect(glob.content).toContain('src/app.ts');
    expect(glob.content).not.toMatch(/\.env|secrets/);
  });
});

describe('resolveInside and secretPathReason', () => {
  it('reports where a link inside the tree really leads', async () => {
    expect(await resolveInside(checkout, 'env-alias')).toMatchObject({ ok: true, relative: 'env-alias', real: '.env' });
    expect(await resolveInside(checkout, 'git-link/config')).toMatchObject({ ok: false, message: expect.stringContaining('.git') });
  });

  it.each([
    ['.env', true],
    ['deploy/.env.production', true],
    ['certs/server.pem', true],
    ['secrets/anything.txt', true],
    ['src/app.ts', false],
    ['.env-guide.md', false],
    ['docs/environment.md', false],
  ])('%s → secret: %s', (relative, secret) => {
    expect(secretPathReason(relative) !== null).toBe(secret);
  });
});
