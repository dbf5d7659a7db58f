import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { cleanupTempDirs, fakeGh, addBareRemote, makeRepo, sh } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

async function cli(cwd: string, argv: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { cwd, env: { ...process.env, NO_COLOR: '1', CI: '', ...env }, isTTY: false, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

const LOOP_MD = (delivery = 'local') => `---
loop-runtime:
  backend: mock
  backendOptions:
    targetPath: .env
  verify:
    - "true"
  delivery:
    mode: ${delivery}
  loops:
    daily-triage: {}
---
# Loops
`;

describe('approve / reject / inbox', () => {
  it('round trip: an escalated change waits in the inbox; approve re-runs the gate, needs --yes, commits and opens a PR; reject discards', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD('pull-request') });
    await addBareRemote(root);
    const gh = await fakeGh();
    const env = { PATH: `${gh.bin}:${process.env.PATH}` };

    const run = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'], env);
    expect(cliJson(run.stdout).ticks[0].kind).toBe('escalated');

    const inbox = await cli(root, ['inbox', '--json']);
    const items = cliJson(inbox.stdout).items;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ pattern: 'daily-triage', itemKey: 'mock#1', branch: expect.stringMatching(/^loop\/daily-triage\//) });
    expect(items[0].reason).toMatch(/denylist: \.env/);
    const id: string = items[0].id;
    expect((await cli(root, ['inbox'])).stdout).toContain(id);

    const refused = await cli(root, ['approve', id]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toMatch(/gate \(commit\): escalates \(denylist\)/);
    expect(sh(root, ['log', '--oneline', items[0].branch]).split('\n').filter(Boolean)).toHaveLength(1);

    const approved = await cli(root, ['approve', id, '--yes', '--json'], env);
    expect(approved.code).toBe(0);
    const result = cliJson(approved.stdout);
    expect(result).toMatchObject({ status: 'applied', paths: ['.env'], delivery: { kind: 'pull-request', url: 'https://github.com/acme/demo/pull/1' } });
    expect(sh(root, ['log', '-1', '--format=%(trailers:key=Loop-Approved-By,valueonly)', items[0].branch]).trim()).toBe('human');
    expect(sh(root, ['show', '--name-only', '--format=', items[0].branch]).trim()).toBe('.env');
    expect((await gh.calls()).filter((args) => args[1] === 'create')).toHaveLength(1);
    const state = await readFile(join(root, 'STATE.md'), 'utf8');
    expect(state).toContain('- [x] mock#1');
    expect(state).toMatch(/Decided: .*approved by a human/);
    const runLog = await readFile(join(root, 'loop-run-log.md'), 'utf8');
    expect(runLog).toContain('"kind":"human-approved"');
    expect(cliJson((await cli(root, ['inbox', '--json'])).stdout).items).toEqual([]);
    expect((await cli(root, ['approve', id])).code).toBe(3);

    // mock#1's pull request is open: the next tick does not work on the item again.
    const open = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'], env);
    expect(cliJson(open.stdout).ticks[0]).toMatchObject({ kind: 'report', degradedReason: expect.stringContaining('open proposal (mock#1)') });

    // A second escalation (another item), rejected this time.
    await writeFile(join(root, 'LOOP.md'), LOOP_MD('pull-request').replace('targetPath: .env', 'targetPath: .env\n    itemKey: "mock#2"'));
    const again = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'], env);
    expect(cliJson(again.stdout).ticks[0].kind).toBe('escalated');
    const waiting = cliJson((await cli(root, ['inbox', '--json'])).stdout).items;
    expect(waiting).toHaveLength(1);
    const rejected = await cli(root, ['reject', 'mock#2']);
    expect(rejected.code).toBe(0);
    expect(rejected.stdout).toContain(`Rejected ${waiting[0].id}`);
    expect(sh(root, ['branch', '--list', waiting[0].branch]).trim()).toBe('');
    expect(existsSync(waiting[0].path)).toBe(false);
    expect(await readFile(join(root, 'loop-run-log.md'), 'utf8')).toContain('"kind":"human-rejected"');
    expect(cliJson((await cli(root, ['inbox', '--json'])).stdout).items).toEqual([]);
    // The main worktree never saw the agent's .env.
    expect(existsSync(join(root, '.env'))).toBe(false);
  });

  it('approve goes through the same redaction as a tick: a failing gh that echoes the token leaks it into no file and no output', async () => {
    const canary = 'ghp_' + 'C4n4ryT0k3nV4lu3F0rApprov3Pth00001';
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD('pull-request') });
    await addBareRemote(root);
    const bin = await mkdtemp(join(tmpdir(), 'loop-gh-leaky-'));
    // A gh whose `pr create` fails and quotes its credentials, as a misconfigured remote URL would.
    await writeFile(join(bin, 'gh'), `#!/bin/sh\nif [ "$1" = pr ] && [ "$2" = create ]; then echo "HTTP 401: bad credentials for token $GH_TOKEN" >&2; exit 1; fi\nif [ "$1" = pr ] && [ "$2" = list ]; then echo '[]'; fi\nexit 0\n`);
    await chmod(join(bin, 'gh'), 0o755);
    const env = { PATH: `${bin}:${process.env.PATH}`, GH_TOKEN: canary };

    const run = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'], env);
    expect(cliJson(run.stdout).ticks[0].kind).toBe('escalated');
    const id: string = cliJson((await cli(root, ['inbox', '--json'], env)).stdout).items[0].id;
    const approved = await cli(root, ['approve', id, '--yes', '--json'], env);
    const result = cliJson(approved.stdout);
    expect(result.status).toBe('applied');
    expect(result.delivery.ok).toBe(false);
    const deliveries = await readFile(join(root, '.loop-runtime', 'deliveries.json'), 'utf8');
    // The failed delivery is kept for a retry, with its reason redacted like every other file.
    expect(JSON.parse(deliveries).deliveries).toEqual([expect.objectContaining({ kind: 'failed', reason: expect.stringContaining('[REDACTED') })]);
    const inbox = await cli(root, ['inbox', '--json'], env);
    expect(cliJson(inbox.stdout).items).toEqual([expect.objectContaining({ kind: 'delivery-failed', reason: expect.stringMatching(/^verified, delivery failed: /) })]);
    for (const text of [approved.stdout, approved.stderr, inbox.stdout, deliveries, await readFile(join(root, 'STATE.md'), 'utf8'), await readFile(join(root, 'loop-run-log.md'), 'utf8')]) {
      expect(text).not.toContain(canary);
    }
    expect(result.delivery.message).toContain('[REDACTED');
  });
});
