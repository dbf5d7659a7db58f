/**
 * Ctrl-C during `run`, with real processes: the built CLI ticks a loop whose
 * backend starts a subprocess group that never ends; once stderr reports the
 * implementing phase, the test sends SIGINT. The CLI must stop the group,
 * settle the reservation with what was spent, release the lease, say what
 * it left and exit 130. No sleeps: every wait is on an output or exit event.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, PACKAGE_ROOT } from './e2e-fixtures.js';
import { cleanupTempDirs, GIT_ENV, makeRepo, sh } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

const CLI_PROCESS = join(PACKAGE_ROOT, 'dist', 'backends', 'shared', 'cli-process.js');

/** Triage finds one item; the implementer writes a file, then runs a child that never exits, under the tick's signal. */
const SLOW_BACKEND = `
import { startCliProcess } from ${JSON.stringify(CLI_PROCESS)};
const usage = (tokens) => ({ inputTokens: tokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 });
export function createBackend() {
  return {
    specificationVersion: 'agent-backend-v2',
    name: 'slow',
    async run(request) {
      if (request.role === 'triage') {
        return { ok: true, role: 'triage', usage: usage(100), output: { decision: 'act', summary: 'work', findings: [], items: [{ key: 'slow#1', title: 'Tidy the example module', paths: ['src/example.ts'] }] } };
      }
      if (request.role === 'implement') {
        await request.files.write('src/example.ts', 'half-written when the operator stopped it\\n');
        const child = startCliProcess({ binary: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], cwd: request.workspace.path, env: { PATH: process.env.PATH ?? '' }, timeoutMs: 600000, killGraceMs: 200, signal: request.signal });
        process.stderr.write('slow-backend: subprocess ' + child.pid + ' started\\n');
        const exit = await child.done;
        return { ok: false, reason: 'aborted', message: 'stopped: ' + exit.killedFor, retryable: true, usage: usage(700) };
      }
      return { ok: true, role: 'check', usage: usage(1), output: { verdict: 'APPROVE', reasons: [] } };
    },
  };
}
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('Ctrl-C during run', () => {
  it('stops the backend group, settles the spend, releases the lease, says what it left and exits 130', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': '---\nloop-runtime:\n  verify: ["true"]\n  loops: { daily-triage: {} }\n---\n# Loops\n' });
    await writeFile(join(root, 'slow-backend.mjs'), SLOW_BACKEND);
    sh(root, ['add', 'slow-backend.mjs']);
    sh(root, ['commit', '--quiet', '-m', 'backend plugin']);

    const child = spawn(process.execPath, [BIN, 'run', 'daily-triage', '--level', 'L2', '--backend', './slow-backend.mjs', '--allow-unsandboxed'], {
      cwd: root,
      env: { ...process.env, ...GIT_ENV, NO_COLOR: '1', CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    // Wait on output, not on time: SIGINT once the progress line says the implementer runs and its subprocess is up.
    await new Promise<void>((ready, fail) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/ implementing$/m.test(stderr) && /slow-backend: subprocess \d+ started/.test(stderr)) ready();
      });
      child.on('exit', () => fail(new Error(`the CLI ended before the implementer: ${stderr}${stdout}`)));
    });
    const backendPid = Number(/slow-backend: subprocess (\d+) started/.exec(stderr)![1]);
    expect(alive(backendPid)).toBe(true);
    child.kill('SIGINT');

    expect(await exited).toBe(130);
    expect(alive(backendPid)).toBe(false);
    const left = /Left: worktree (\S+) on branch (loop\/daily-triage\/\S+) \(unverified\)/.exec(stderr);
    expect(stderr).toContain('Interrupted (Ctrl-C)');
    expect(left).not.toBeNull();
    const [, worktree, branch] = left!;
    expect(await readFile(join(worktree!, 'src/example.ts'), 'utf8')).toBe('half-written when the operator stopped it\n');
    expect(sh(root, ['branch', '--list', branch!]).trim()).toContain(branch!);
    expect(existsSync(join(root, '.loop-runtime', 'leases', 'daily-triage.lock'))).toBe(false);

    // Every reservation is settled; the implementer's with what it spent before the stop.
    const journal = (await readFile(join(root, '.loop-runtime', 'spend.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { kind: string; id: string; phase: string; tokens?: number });
    const opened = journal.filter((entry) => entry.kind === 'open');
    const settled = new Map(journal.filter((entry) => entry.kind === 'settle').map((entry) => [entry.id, entry]));
    expect(opened.map((entry) => entry.phase)).toEqual(['triage', 'implement']);
    for (const entry of opened) expect(settled.has(entry.id)).toBe(true);
    expect(settled.get(opened[1]!.id)?.tokens).toBe(700);

    // The kept change waits in the inbox like any escalation.
    const inbox = spawn(process.execPath, [BIN, 'inbox', '--json'], { cwd: root, env: { ...process.env, NO_COLOR: '1', CI: '' } });
    let listed = '';
    inbox.stdout.on('data', (chunk: Buffer) => (listed += chunk.toString()));
    await new Promise((done) => inbox.on('exit', done));
    expect((cliJson(listed) as { items: Array<{ branch: string; path: string }> }).items).toMatchObject([{ branch, path: worktree }]);
  });
});
