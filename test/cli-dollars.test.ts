/**
 * Dollars beside tokens in `run`, `status` and `history` through the built CLI (a real subprocess), with the openai
 * backend against its fake server: a listed model is priced at the dated list prices, a model with no price says so
 * (and `costUsd` is null, never a guess), the same model with `prices:` set is priced at the user's prices, and a
 * rehearsal costs $0. One pricing (tick-cost.ts) serves all three commands, so their numbers agree.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PRICES_AS_OF } from '../backends/shared/usage.js';
import { startFakeOpenAIServer } from './fakes/fake-openai-server.js';
import { makeLoopRepo, runCli } from './e2e-fixtures.js';
import { cleanupTempDirs } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await cleanupTempDirs();
});

const REPORT = JSON.stringify({
  decision: 'report',
  summary: 'The README is out of date.',
  findings: [{ severity: 'low', summary: 'README names a removed flag' }],
  items: [],
});

/** A repository whose daily-triage loop runs `model` on the openai backend; its one triage call spends 1,000 in + 100 out. */
async function pricedRepo(model: string, backendOptions: Record<string, unknown> = {}) {
  const step = { toolCalls: [{ name: 'done', arguments: { result: REPORT } }], usage: { input: 1000, output: 100 } };
  const server = await startFakeOpenAIServer([step, step]);
  cleanups.push(() => server.close());
  const repo = await makeLoopRepo({ 'README.md': '# demo\n' }, { backend: 'openai', model, backendOptions: { baseURL: `${server.url}/v1`, apiKey: 'test-key', ...backendOptions } });
  return { repo, server };
}

async function runAndRead(repo: string) {
  const run = await runCli(repo, ['run', 'daily-triage', '--json']);
  expect(run.stderr).not.toMatch(/Error/);
  const text = await runCli(repo, ['history']);
  const status = cliJson((await runCli(repo, ['status', '--json'])).stdout);
  const history = cliJson((await runCli(repo, ['history', '--json'])).stdout);
  const statusText = (await runCli(repo, ['status'])).stdout;
  return { run: cliJson(run.stdout), status: status.loops[0], history: history[0], historyText: text.stdout, statusText };
}

describe('dollars wherever tokens are shown', () => {
  it('prices a listed model at the dated list prices, the same number in run, status and history', async () => {
    const { repo, server } = await pricedRepo('gpt-4o-mini');
    const { run, status, history, historyText, statusText } = await runAndRead(repo);
    expect(server.requests).toHaveLength(1);
    // gpt-4o-mini: $0.15 in, $0.60 out per million → 1,000 × 0.15e-6 + 100 × 0.6e-6.
    const cost = 0.00021;
    const source = `gpt-4o-mini at list prices of ${DEFAULT_PRICES_AS_OF}`;
    expect(run.ticks[0]).toMatchObject({ kind: 'report', tokens: 1100, costUsd: cost });
    expect(run).toMatchObject({ costUsd: cost, priceSource: source });
    expect(status).toMatchObject({ spentToday: 1100, costUsd: cost, priceSource: source });
    expect(history).toMatchObject({ tokens: 1100, costUsd: cost, priceSource: source });
    expect(historyText).toContain('1,100 tokens $0.0002');
    expect(historyText).toContain(`Prices: ${source}.`);
    expect(statusText).toContain('1,100 / ');
    expect(statusText).toContain('tokens today ($0.0002)');
    expect(statusText).toContain(`Prices: ${source}.`);

    const human = await runCli(repo, ['run', 'daily-triage']);
    expect(human.stdout).toContain('tick 1: report-only — 1,100 tokens ($0.0002)');
    expect(human.stdout).toContain(`Cost: $0.0002 for this run — ${source}.`);
  });

  it('says which model has no price and how to set one; costUsd is null, never a made-up number', async () => {
    const { repo } = await pricedRepo('house-model');
    const { run, status, history, historyText, statusText } = await runAndRead(repo);
    const source = 'house-model: price unknown — set prices: in the backend settings';
    expect(run.ticks[0]).toMatchObject({ tokens: 1100, costUsd: null });
    expect(run).toMatchObject({ costUsd: null, priceSource: source });
    expect(status).toMatchObject({ costUsd: null, priceSource: source });
    expect(history).toMatchObject({ costUsd: null, priceSource: source });
    expect(historyText).toContain('1,100 tokens $?');
    expect(statusText).toContain('tokens today ($?)');
    expect(statusText).toContain(`Prices: ${source}.`);
  });

  it('prices the same model at the prices: the user set (the allowed twin of the unknown price)', async () => {
    const { repo } = await pricedRepo('house-model', { prices: { 'house-model': { input: 1, output: 2 } } });
    const { run, status, history } = await runAndRead(repo);
    const source = 'house-model at your prices: (backend settings)';
    // 1,000 × 1e-6 + 100 × 2e-6.
    expect(run).toMatchObject({ costUsd: 0.0012, priceSource: source });
    expect(status).toMatchObject({ costUsd: 0.0012, priceSource: source });
    expect(history).toMatchObject({ costUsd: 0.0012, priceSource: source });
  });

  it('a rehearsal (--backend mock) costs $0 and says rehearsal, while its tokens stay tokens', async () => {
    const { repo, server } = await pricedRepo('house-model');
    const run = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock']);
    expect(server.requests).toHaveLength(0);
    expect(run.stdout).toMatch(/tick 1: .* — [\d,]+ tokens \(\$0\.00\)/);
    expect(run.stdout).toContain('Cost: $0.00 for this run — rehearsal: the mock backend costs nothing.');
    const history = cliJson((await runCli(repo, ['history', '--json'])).stdout);
    expect(history[0]).toMatchObject({ costUsd: 0, priceSource: 'rehearsal: the mock backend costs nothing' });
    expect(history[0].tokens).toBeGreaterThan(0);
    // Today's real spend is none: $0.00 at the configured model's (unknown) price is not claimed as unknown.
    const status = cliJson((await runCli(repo, ['status', '--json'])).stdout);
    expect(status.loops[0]).toMatchObject({ spentToday: 0, costUsd: 0 });
  });
});
