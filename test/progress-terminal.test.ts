import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { retryLabel } from '../src/use-cases/progress-labels.js';
import { startFakeOpenAIServer, type OpenAIStep } from './fakes/fake-openai-server.js';
import { cleanupTempDirs, makeRepo } from './git-fixtures.js';

afterAll(cleanupTempDirs);

const LOOP_MD = '---\nloop-runtime:\n  backend: mock\n  loops: { daily-triage: {} }\n---\n# Loops\n';

async function dryRun(root: string, terminals: { isTTY: boolean; stderrIsTTY: boolean }, env: Record<string, string> = {}): Promise<string> {
  let stderr = '';
  let now = Date.parse('2026-11-24T10:00:00Z');
  const clock = { now: () => (now += 250) };
  const code = await main(['run', 'daily-triage', '--dry-run', '--level', 'L2'], { cwd: root, env: { ...process.env, NO_COLOR: '1', CI: '', ...env }, ...terminals, clock, stdout: () => {}, stderr: (text) => (stderr += text) });
  expect(code).toBe(0);
  return stderr;
}

describe('progress follows stderr', () => {
  it("draws the running phase live when stderr is a terminal (whatever stdout is), nothing when it is piped, plain lines in CI", async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD });
    const live = await dryRun(root, { isTTY: false, stderrIsTTY: true });
    expect(live).toContain('\r\x1b[Ktriaging');
    expect(live).toContain('\r\x1b[Kimplementing');
    expect(await dryRun(root, { isTTY: true, stderrIsTTY: false })).not.toContain('\r\x1b[K');
    const ci = await dryRun(root, { isTTY: true, stderrIsTTY: true }, { CI: 'true' });
    expect(ci).not.toContain('\r\x1b[K');
    expect(ci).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z implementing$/m);
  });
});

const NOOP = JSON.stringify({ decision: 'noop', summary: 'nothing to do', findings: [], items: [] });
const UNAVAILABLE: OpenAIStep = { error: { status: 503, message: 'Service Unavailable', type: 'server_error', code: null } };

/** `run` on a terminal with the openai backend at a local fake that answers `steps`; returns stderr. */
async function liveRun(steps: OpenAIStep[]): Promise<{ stderr: string; url: string }> {
  const model = await startFakeOpenAIServer([...steps, { toolCalls: [{ name: 'done', arguments: { result: NOOP } }], usage: { input: 900, output: 60 } }]);
  try {
    const loopMd = `---\nloop-runtime:\n  loops: { daily-triage: { backend: openai, model: gpt-4o-mini, backendOptions: { baseURL: "${model.url}/v1", apiKey: test-key } } }\n---\n# Loops\n`;
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': loopMd });
    let stderr = '';
    let now = Date.parse('2026-11-24T10:00:00Z');
    const clock = { now: () => (now += 250) };
    const code = await main(['run', 'daily-triage', '--level', 'L2'], { cwd: root, env: { ...process.env, NO_COLOR: '1', CI: '' }, isTTY: false, stderrIsTTY: true, clock, stdout: () => {}, stderr: (text) => (stderr += text) });
    expect(code).toBe(0);
    expect(model.requests.filter((request) => request.method === 'POST')).toHaveLength(steps.length + 1);
    return { stderr, url: `${model.url}/v1` };
  } finally {
    await model.close();
  }
}

describe('retries on the progress line', () => {
  it('golden: the line names the phase, the failed attempts, the configured URL and how they failed', () => {
    expect(retryLabel({ phase: 'implement', attempts: 3, endpoint: 'http://127.0.0.1:4000/v1', failure: 'refused (ECONNREFUSED)' })).toBe(
      'implementing — retrying: 3 attempts to http://127.0.0.1:4000/v1 refused (ECONNREFUSED)',
    );
    expect(retryLabel({ phase: 'triage', attempts: 1, endpoint: 'https://api.openai.com/v1', failure: 'HTTP 529' })).toBe('triaging — retrying: 1 attempt to https://api.openai.com/v1 failed (HTTP 529)');
  });

  it('a run whose model call is retried shows each retry live; the healthy twin shows none', async () => {
    const retried = await liveRun([UNAVAILABLE, UNAVAILABLE]);
    expect(retried.stderr).toContain(`\r\x1b[Ktriaging — retrying: 1 attempt to ${retried.url} failed (HTTP 503)`);
    expect(retried.stderr).toContain(`\r\x1b[Ktriaging — retrying: 2 attempts to ${retried.url} failed (HTTP 503)`);
    const healthy = await liveRun([]);
    expect(healthy.stderr).toContain('\r\x1b[Ktriaging');
    expect(healthy.stderr).not.toContain('retrying');
  });
});
