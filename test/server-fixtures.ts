/**
 * Shared by the console tests: a repository scaffolded by the real loop-init
 * with a mock loop at L2, the built CLI as a subprocess, and a canary secret.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const packageRoot = join(import.meta.dirname, '..');
const bin = join(packageRoot, 'bin', 'loop-runtime.js');
const loopInit = join(packageRoot, 'node_modules', '.bin', 'loop-init');

/** A secret only the environment holds; it must never appear in anything the console serves. */
export const CANARY = 'ghp_consoleCanary0123456789abcdefABCDEF99';
export const CANARY_ENV = { GITHUB_TOKEN: CANARY };

/** A git repository with daily-triage at L2 on the mock backend, one verification command, and `scenarios` for the mock. */
export async function scaffoldRepository(scenarios: string[] = ['escalate']): Promise<string> {
  const repo = await mkdtemp(join(tmpdir(), 'console-'));
  const git = (...args: string[]) => run('git', args, { cwd: repo });
  await git('init', '--quiet', '--initial-branch=main');
  await run(loopInit, [repo, '--pattern', 'daily-triage', '--tool', 'claude'], { cwd: repo });
  await mkdir(join(repo, 'src'));
  await writeFile(join(repo, 'src', 'example.ts'), 'export const answer = 42;\n');
  const loopMd = await readFile(join(repo, 'LOOP.md'), 'utf8');
  const block = `loop-runtime:\n  level: L2\n  backend: mock\n  backendOptions:\n    scenarios: [${scenarios.join(', ')}]\n  verify: ["true"]\n`;
  await writeFile(join(repo, 'LOOP.md'), loopMd.startsWith('---\n') ? `---\n${block}${loopMd.slice(4)}` : `---\n${block}---\n${loopMd}`);
  await git('add', '-A');
  await git('-c', 'user.name=Test', '-c', 'user.email=test@example.invalid', 'commit', '--quiet', '-m', 'initial');
  return repo;
}

/** Runs the built CLI in `cwd`; never throws on a non-zero exit. */
export async function cli(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', CI: '', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}
