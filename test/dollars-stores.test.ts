/**
 * Dollars beside tokens through one pricing (tick-cost.ts) × every store × every command that shows spend:
 * `run --due`, `run <id>`, `status` and `history`, on the file store and on a private Postgres. A real openai backend
 * at a local fake (gpt-4o-mini, priced by the dated list prices) spends 900 input and 60 output tokens per tick:
 * $0.000171 each. The twin: the same ticks with a model nobody priced read `null`, never a guess.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { renderDue } from '../src/cli/render/render-due.js';
import type { DueRunSummary } from '../src/use-cases/run.js';
import { cliJson } from './cli-json.js';
import { startFakeOpenAIServer } from './fakes/fake-openai-server.js';
import { usePgCluster } from './fleet-processes.js';
import type { FakeServer } from './fakes/http-fake.js';
import { makeRepo } from './git-fixtures.js';

const cluster = usePgCluster();
const servers: FakeServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

const NOOP = JSON.stringify({ decision: 'noop', summary: 'nothing to do', findings: [], items: [] });
const TICK_USD = (900 * 0.15 + 60 * 0.6) / 1e6;

async function project(model: string): Promise<{ root: string; command(args: string[], env: Record<string, string | undefined>): Promise<unknown> }> {
  const done = { toolCalls: [{ name: 'done', arguments: { result: NOOP } }], usage: { input: 900, output: 60 } };
  const server = await startFakeOpenAIServer([done, done]);
  servers.push(server);
  const loopMd = `---\nloop-runtime:\n  loops: { daily-triage: { backend: openai, model: ${model}, backendOptions: { baseURL: "${server.url}/v1", apiKey: test-key } } }\n---\n# Loops\n`;
  const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': loopMd });
  let now = Date.parse('2026-11-27T10:00:00Z');
  const clock = { now: () => (now += 1000) };
  return {
    root,
    async command(args, env) {
      let stdout = '';
      let stderr = '';
      const code = await main([...args, '--json'], { cwd: root, env: { ...process.env, NO_COLOR: '1', CI: '', ...env }, isTTY: false, stderrIsTTY: false, clock, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
      expect(code, `${args.join(' ')}: ${stderr}\n${stdout.slice(0, 2000)}`).toBe(0);
      return cliJson(stdout);
    },
  };
}

const STORES = [
  { store: 'files', described: /^files under \.loop-runtime\/$/, env: async () => ({ LOOP_RUNTIME_DATABASE_URL: undefined }) },
  { store: 'postgres', described: /^postgres postgresql:/, env: async () => ({ LOOP_RUNTIME_DATABASE_URL: await cluster.createDatabase('dollars') }) },
] as const;

describe.each(STORES)('dollars on the $store store', ({ env: storeEnv, described }) => {
  it('run --due, run, status and history price each tick the same, and say what priced it', async () => {
    const env = await storeEnv();
    const { command } = await project('gpt-4o-mini');
    const due = (await command(['run', '--due', '--level', 'L2'], env)) as DueRunSummary;
    expect(due.decisions).toMatchObject([{ id: 'daily-triage', action: 'ticked', tick: { tokens: 960, costUsd: TICK_USD } }]);
    expect(due.decisions[0]!.priceSource).toMatch(/^gpt-4o-mini at list prices of \d{4}-\d\d-\d\d$/);
    expect(due.costUsd).toBe(TICK_USD);

    const run = (await command(['run', 'daily-triage', '--level', 'L2'], env)) as { ticks: Array<{ costUsd: number | null }>; costUsd: number | null; priceSource: string };
    expect(run).toMatchObject({ ticks: [{ costUsd: TICK_USD }], costUsd: TICK_USD, priceSource: due.decisions[0]!.priceSource });

    const status = (await command(['status'], env)) as { store: string; loops: Array<{ id: string; costUsd?: number | null; priceSource?: string }> };
    expect(status.store).toMatch(described);
    expect(status.loops.find((loop) => loop.id === 'daily-triage')).toMatchObject({ costUsd: 2 * TICK_USD, priceSource: due.decisions[0]!.priceSource });

    const history = (await command(['history'], env)) as Array<{ costUsd: number | null; priceSource: string; tokens: number }>;
    expect(history).toHaveLength(2);
    for (const record of history) expect(record).toMatchObject({ tokens: 960, costUsd: TICK_USD, priceSource: due.decisions[0]!.priceSource });
  });

  it("the Action's cost-usd prices a tick the JSON left unpriced from this store's spend", async () => {
    const env = await storeEnv();
    const { root, command } = await project('gpt-4o-mini');
    const run = (await command(['run', 'daily-triage', '--level', 'L2'], env)) as { ticks: Array<Record<string, unknown>> };
    // A run JSON whose tick carries no cost of its own (as an older loop-runtime wrote it): only the store can price it.
    const unpriced = { ...run, ticks: run.ticks.map(({ costUsd: _cost, ...tick }) => tick), costUsd: undefined };
    const file = join(root, '.loop-runtime', 'run.json');
    await writeFile(file, JSON.stringify({ version: 1, ok: true, command: 'run', data: unpriced }));
    const outputFile = join(root, '.loop-runtime', 'github-output');
    await writeFile(outputFile, '');
    await command(['ci', 'summary', file, '--outputs'], { ...env, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: join(root, '.loop-runtime', 'summary.md') });
    expect(await readFile(outputFile, 'utf8')).toContain(`cost-usd=${TICK_USD.toFixed(4)}\n`);
  });

  it('the twin: a model with no price is $? (null) everywhere, naming the fix', async () => {
    const env = await storeEnv();
    const { command } = await project('house-model');
    const due = (await command(['run', '--due', '--level', 'L2'], env)) as DueRunSummary;
    expect(due.decisions).toMatchObject([{ action: 'ticked', tick: { tokens: 960, costUsd: null } }]);
    expect(due.costUsd).toBeNull();
    expect(due.decisions[0]!.priceSource).toMatch(/house-model: price unknown/);
    const history = (await command(['history'], env)) as Array<{ costUsd: number | null }>;
    expect(history).toMatchObject([{ costUsd: null }]);
  });
});

describe('run --due text', () => {
  it('golden: each ticked loop with its tokens and dollars, the run total and the price source once', () => {
    const base = { due: true, reason: 'never-run', detail: 'never ran', intervalMs: 3_600_000, nextAt: '2026-11-27T11:00:00.000Z', exitCode: 0 } as const;
    const tick = (tokens: number, costUsd: number | null) => ({ kind: 'report', tokens, costUsd, summary: 'nothing to do' }) as never;
    const summary: DueRunSummary = {
      mode: 'due', at: '2026-11-27T10:00:00.000Z', dryRun: false, exitCode: 0, costUsd: 0.000342,
      decisions: [
        { ...base, id: 'daily-triage', action: 'ticked', tick: tick(960, 0.000171), priceSource: 'gpt-4o-mini at list prices of 2026-11-23' },
        { ...base, id: 'ci-sweeper', action: 'ticked', tick: tick(960, 0.000171), priceSource: 'gpt-4o-mini at list prices of 2026-11-23' },
        { ...base, id: 'dep-bump', due: false, reason: 'not-yet' as never, detail: 'next in 40 min', action: 'not-due' },
      ],
    };
    expect(renderDue(summary)).toBe(
      [
        '2 of 3 loop(s) ticked:',
        'daily-triage  ticked    report — 960 tokens ($0.0002) (never ran) — nothing to do',
        'ci-sweeper    ticked    report — 960 tokens ($0.0002) (never ran) — nothing to do',
        'dep-bump      not due   next in 40 min',
        'Cost: $0.0003 for this run.',
        'Prices: gpt-4o-mini at list prices of 2026-11-23.',
      ].join('\n'),
    );
    const rehearsal = { ...summary, dryRun: true, costUsd: 0, decisions: [{ ...summary.decisions[0]!, rehearsal: true, tick: tick(960, 0), priceSource: 'rehearsal: the mock backend costs nothing' }] };
    expect(renderDue(rehearsal).split('\n').slice(1)).toEqual([
      'daily-triage  ticked    report — rehearsal: 960 tokens, not counted (never ran) — nothing to do',
      'Cost: $0.00 for this run.',
      'Prices: rehearsal: the mock backend costs nothing.',
    ]);
  });
});
