/**
 * Replayable ticks for users, end to end: `run --record` during a real tick
 * (the real `claude` binary against the local fake Anthropic API, a real git
 * worktree, verification in bubblewrap) writes a redacted recording;
 * `replay` and `test` re-run it offline — the fake server gets no request,
 * no key is set, nothing in the repository changes — under the current
 * configuration. A gate.yaml that now denies the changed path turns the
 * recorded proposal into an escalation: reported, exit 6.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { startFakeAnthropicServer, text, toolUse, type AnthropicStep } from './fakes/fake-anthropic-server.js';
import { BUGGY_ADD_PROJECT, CLAUDE, makeLoopRepo, worktreeOf } from './e2e-fixtures.js';
import { cleanupTempDirs, fingerprint, GIT_ENV } from './git-fixtures.js';
import { cliEnvelope, cliJson } from './cli-json.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await cleanupTempDirs();
});

const ENV_CANARY = 'canary-env-Q7xK2mP9vR4tW8zB';
const SHAPED_CANARY = `ghp_${'Z'.repeat(8)}${'a1b2c3d4'.repeat(4)}`;
const KEY_CANARY = 'sk-ant-canary-L5nH3jF6dS1gA0qE';

/** The model quotes a secret it saw (the prompt carries the env canary via the triage summary) and a token-shaped string. */
function script(): AnthropicStep[] {
  const triage = JSON.stringify({
    decision: 'act',
    summary: `add() subtracts; its test fails. (saw LOOP_DEPLOY_TOKEN=${ENV_CANARY})`,
    findings: [{ severity: 'high', summary: 'add() returns a - b', itemKey: 'bug#1' }],
    items: [{ key: 'bug#1', title: 'add() subtracts instead of adding', paths: ['src/add.mjs'] }],
  });
  return [
    text(triage, { input: 1200, output: 80 }),
    (request) => toolUse('Read', { file_path: join(worktreeOf(request), 'src/add.mjs') }, { input: 1500, output: 30 }),
    (request) => toolUse('Edit', { file_path: join(worktreeOf(request), 'src/add.mjs'), old_string: 'a - b', new_string: 'a + b' }, { input: 1700, output: 40 }),
    text(`Changed add(). Token seen: ${SHAPED_CANARY}`, { input: 1800, output: 20 }),
    text('Reviewed.\n## Verdict: APPROVE\n- looked at the diff', { input: 900, output: 25 }),
  ];
}

async function cli(cwd: string, args: string[], env: Record<string, string | undefined>) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { cwd, env: { NO_COLOR: '1', ...env }, isTTY: false, stdout: (chunk) => void (stdout += chunk), stderr: (chunk) => void (stderr += chunk) });
  return { code, stdout, stderr };
}

let repo: string;
let recordingFile: string;
let requestsAfterRecording: number;
let server: Awaited<ReturnType<typeof startFakeAnthropicServer>>;
/** Replay needs no key, no model URL: only PATH (and git's identity, unused). */
const OFFLINE_ENV = { PATH: process.env.PATH, ...GIT_ENV };

beforeAll(async () => {
  server = await startFakeAnthropicServer(script());
  cleanups.push(() => server.close());
  const home = await mkdtemp(join(tmpdir(), 'loop-replay-cli-home-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  repo = await makeLoopRepo(BUGGY_ADD_PROJECT, {
    backend: 'claude-code',
    level: 'L2',
    verify: ['node --test test/'],
    backendOptions: { binary: CLAUDE, home, maxRetries: 0, maxTurns: 8, timeoutMs: 600_000, killGraceMs: 500 },
  });
  recordingFile = join(repo, 'loops', 'daily-triage', 'recordings', 'add-bug.json');
  const env = {
    PATH: process.env.PATH,
    ...GIT_ENV,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: KEY_CANARY,
    LOOP_DEPLOY_TOKEN: ENV_CANARY,
    CLAUDE_CODE_MAX_RETRIES: '0',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  const recorded = await cli(repo, ['run', 'daily-triage', '--record', 'loops/daily-triage/recordings/add-bug.json', '--json'], env);
  expect(recorded.code, recorded.stdout + recorded.stderr).toBe(0);
  expect((cliJson(recorded.stdout) as { ticks: Array<{ kind: string }> }).ticks[0]!.kind).toBe('proposed');
  requestsAfterRecording = server.requests.length;
});

describe('run --record, replay and test', () => {
  it('a recording holds the whole tick and no secret from the environment, the prompt or the answers', async () => {
    const text = await readFile(recordingFile, 'utf8');
    const recording = JSON.parse(text) as { format: string; loop: string; backend: string; history: { calls: Array<{ port: string }>; result: { kind: string } } };
    expect(recording).toMatchObject({ format: 'loop-runtime-recording', loop: 'daily-triage', backend: 'claude-code' });
    expect(recording.history.result.kind).toBe('proposed');
    expect([...new Set(recording.history.calls.map((call) => call.port))]).toEqual(expect.arrayContaining(['backend', 'workspace', 'commands', 'budget', 'state']));
    for (const canary of [ENV_CANARY, SHAPED_CANARY, KEY_CANARY]) expect(text.includes(canary), canary).toBe(false);
    // The answers were kept, only the secrets were taken out of them.
    expect(text).toContain('add() subtracts; its test fails. (saw LOOP_DEPLOY_TOKEN=');
  });

  it('replays offline to the identical result: exit 0, no model request, nothing written', async () => {
    const before = await fingerprint(repo);
    const replayed = await cli(repo, ['replay', recordingFile, '--json'], OFFLINE_ENV);
    expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
    const report = cliJson(replayed.stdout) as { identical: boolean; facts: unknown[]; calls: Array<{ kind: string }>; recorded: { kind: string; verdict: string; gate: string } };
    expect(report).toMatchObject({ identical: true, facts: [], recorded: { kind: 'proposed', verdict: 'APPROVE', gate: 'allowed (ok)' } });
    expect(report.calls.filter((call) => call.kind !== 'arguments')).toEqual([]);
    expect(server.requests.length).toBe(requestsAfterRecording);
    expect(await fingerprint(repo)).toEqual(before);

    const tested = await cli(repo, ['test'], OFFLINE_ENV);
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toContain('✓ loops/daily-triage/recordings/add-bug.json  proposed');
    expect(tested.stdout).toContain('1 recording(s): 1 identical, 0 differ');
  });

  it('a gate.yaml that now denies the changed path: replay reports the escalation, where the calls diverged, exit 6', async () => {
    await writeFile(join(repo, 'gate.yaml'), 'version: 1\ndenylist:\n  - "src/add.mjs"\n');
    try {
      const replayed = await cli(repo, ['replay', recordingFile], OFFLINE_ENV);
      expect(replayed.code, replayed.stdout + replayed.stderr).toBe(6);
      expect(replayed.stdout).toContain('outcome   proposed → escalated');
      expect(replayed.stdout).toMatch(/gate {6}allowed \(ok\) → escalated \(denylist\)/);
      // Recorded: the lease fence before the commit (lease.stillHeld, then workspace.commit); now the gate escalates first.
      expect(replayed.stdout).toMatch(/diverged at call \d+: expected lease\.stillHeld\(\) \(recorded call \d+\), engine asked workspace\.keep\(/);
      expect(replayed.stdout).toMatch(/recorded call \d+ delivery\.deliver\(.*was not asked/);
      expect(replayed.stdout).toContain('gate.source: "built-in default (no gate.yaml)" → "gate.yaml"');
      expect(replayed.stdout).toContain('differs (exit 6)');

      const json = await cli(repo, ['test', '--json'], OFFLINE_ENV);
      expect(json.code).toBe(6);
      expect(cliEnvelope(json.stdout)).toMatchObject({ ok: false, command: 'test', error: { code: 'REPLAY_DIFFERS' } });
      const summary = cliJson(json.stdout) as { counts: Record<string, number>; results: Array<{ status: string; report: { facts: Array<{ fact: string; recorded: unknown; now: unknown }> } }> };
      expect(summary.counts).toEqual({ identical: 0, differs: 1, error: 0 });
      expect(summary.results[0]!.report.facts).toEqual(expect.arrayContaining([{ fact: 'kind', recorded: 'proposed', now: 'escalated' }]));

      // The engine alone (the plan saved in the recording) still ends as recorded.
      expect((await cli(repo, ['replay', recordingFile, '--recorded-plan'], OFFLINE_ENV)).code).toBe(0);
    } finally {
      await rm(join(repo, 'gate.yaml'));
    }
    expect(server.requests.length).toBe(requestsAfterRecording);
  });

  it('a file that is not a recording is a usage problem (exit 3), not a crash', async () => {
    const bogus = join(repo, 'loops', 'daily-triage', 'recordings', 'bogus.json');
    await mkdir(join(repo, 'loops', 'daily-triage', 'recordings'), { recursive: true });
    await writeFile(bogus, '{"format":"something-else"}\n');
    try {
      const replayed = await cli(repo, ['replay', bogus, '--json'], OFFLINE_ENV);
      expect(replayed.code).toBe(3);
      expect(cliEnvelope(replayed.stdout)).toMatchObject({ ok: false, error: { code: 'RECORDING_INVALID' } });
      const tested = await cli(repo, ['test'], OFFLINE_ENV);
      expect(tested.code).toBe(3);
      expect(tested.stdout).toMatch(/✗ loops\/daily-triage\/recordings\/bogus\.json {2}cannot replay: .*not a loop-runtime recording/);
      // --record saves one tick: with --ticks or --due it is refused before anything runs.
      for (const args of [['run', 'daily-triage', '--ticks', '2', '--record', 'x.json'], ['run', '--due', '--record', 'x.json']]) {
        const refused = await cli(repo, [...args, '--json'], OFFLINE_ENV);
        expect(refused.code).toBe(3);
        expect(cliEnvelope(refused.stdout)).toMatchObject({ ok: false, error: { code: 'USAGE', message: expect.stringContaining('--record saves one tick') } });
      }
    } finally {
      await rm(bogus);
    }
  });
});
