/**
 * Shared plumbing for the end-to-end tests (test/e2e-*.test.ts): a real git
 * repository with a LOOP.md `loop-runtime:` block, the built CLI as a real
 * subprocess (`node bin/loop-runtime.js`), and readers for everything a run
 * leaves behind.
 */
import { execa } from 'execa';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { GIT_ENV, makeRepo, sh } from './git-fixtures.js';

export const PACKAGE_ROOT = join(import.meta.dirname, '..');
export const BIN = join(PACKAGE_ROOT, 'bin', 'loop-runtime.js');
export const CLAUDE = join(PACKAGE_ROOT, 'node_modules', '.bin', 'claude');

/** A tiny node:test project whose one test fails until src/add.mjs adds instead of subtracting. */
export const BUGGY_ADD_PROJECT: Record<string, string> = {
  'src/add.mjs': 'export const add = (a, b) => a - b;\n',
  'test/add.test.mjs': [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { add } from '../src/add.mjs';",
    '',
    "test('adds two numbers', () => {",
    '  assert.equal(add(2, 3), 5);',
    '});',
    '',
  ].join('\n'),
  'README.md': '# demo\n',
};

/**
 * Exits 0 when a TCP connection to 127.0.0.1:<port> is impossible (the
 * verifier's sandbox has no network), 1 when it connects (no sandbox).
 */
export const NO_NETWORK_PROBE = [
  "import net from 'node:net';",
  'const socket = net.connect(Number(process.argv[2]), "127.0.0.1");',
  "socket.on('connect', () => { console.log('network reachable: NOT sandboxed'); process.exit(1); });",
  "socket.on('error', (error) => { console.log(`network blocked: ${error.code}`); process.exit(0); });",
  '',
].join('\n');

/** LOOP.md with a `loop-runtime:` front matter block. */
export function loopMarkdown(settings: Record<string, unknown>): string {
  return `---\n${stringify({ 'loop-runtime': settings })}---\n# Loop Configuration\n\nKeep changes small.\n`;
}

/**
 * A real repository on main with `files` and a LOOP.md holding `settings`, one commit.
 * daily-triage is opted in (`loops: { daily-triage: {} }`) unless `settings.loops` says otherwise:
 * a real tick of an unconfigured loop is refused.
 */
export async function makeLoopRepo(files: Record<string, string>, settings: Record<string, unknown>): Promise<string> {
  return makeRepo({ ...files, 'LOOP.md': loopMarkdown({ loops: { 'daily-triage': {} }, ...settings }) });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The built CLI in a real subprocess. `env` replaces the inherited environment's entries of the same name. */
export async function runCli(cwd: string, args: string[], env: Record<string, string | undefined> = {}, options: { timeoutMs?: number } = {}): Promise<CliResult> {
  const result = await execa(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...GIT_ENV, NO_COLOR: '1', CI: '', ...env },
    reject: false,
    timeout: options.timeoutMs ?? 60_000,
  });
  return { code: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Every file under `root` (relative paths), skipping `.git` and the directories named in `skip`. */
export async function listFiles(root: string, skip: (relativePath: string) => boolean = () => false): Promise<string[]> {
  const found: string[] = [];
  const walk = async (directory: string): Promise<void> => {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      const key = relative(root, path);
      if (key === '.git' || skip(key)) continue;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) found.push(key);
    }
  };
  await walk(root);
  return found.sort();
}

export async function readText(root: string, path: string): Promise<string> {
  return readFile(join(root, path), 'utf8');
}

/** `.loop-runtime/spend.jsonl` as spend entries (settles, reconciles, plain spend); open reservations are left out. */
export async function spendEntries(root: string): Promise<Array<{ tickId: string; phase: string; tokens: number; patternId: string; day: string; kind?: string }>> {
  return (await journalLines(root)).filter((line) => line.kind !== 'open');
}

/** Every line of `.loop-runtime/spend.jsonl`, open reservations included. */
export async function journalLines(root: string): Promise<Array<{ tickId: string; phase: string; tokens: number; patternId: string; day: string; kind?: string; id?: string; reserved?: number; reason?: string }>> {
  const text = await readText(root, '.loop-runtime/spend.jsonl').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** Run-log JSON lines the runtime appended (those with a tick_id). */
export async function runLogLines(root: string, file = 'loop-run-log.md'): Promise<Array<Record<string, unknown>>> {
  const text = await readText(root, file).catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"tick_id"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export function git(root: string, ...args: string[]): string {
  return sh(root, args);
}

/** The worktree the CLI created for an attempt, read from what Claude tells the model about its cwd. */
export function worktreeOf(request: { body: unknown }): string {
  const match = /(\/[^\s"'\\]*\/(?:\.loop-worktrees|worktrees)\/[A-Za-z0-9._-]+)/.exec(JSON.stringify(request.body));
  if (!match?.[1]) throw new Error('the implementer request does not mention a worktree directory');
  return match[1];
}

/** Triage's answer for BUGGY_ADD_PROJECT: act on bug#1 in src/add.mjs. */
export const ADD_BUG_TRIAGE = JSON.stringify({
  decision: 'act',
  summary: 'add() subtracts; its test fails.',
  findings: [{ severity: 'high', summary: 'add() returns a - b', itemKey: 'bug#1' }],
  items: [{ key: 'bug#1', title: 'add() subtracts instead of adding', paths: ['src/add.mjs'] }],
});
