/**
 * The readers of spend that `test/dollars-stores.test.ts` leaves out — `metrics` and the console's spend chart
 * (`/api/spend`, the server on port 0 with its token) — and `reset <id> --mock`, × the file store and a private
 * Postgres. Both read the store's `spendByTick` and `reset` removes through `ProjectStores.removeRehearsal`, so the
 * numbers and what is left are the same on both. A real openai backend at a local fake (gpt-4o-mini, list prices)
 * spends 900 input and 60 output tokens per tick: $0.000171. The twins: a model nobody priced reads null (never $0 or
 * a partial sum); a real tick's records survive the reset.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { openProjectStores } from '../src/composition/stores/project-stores.js';
import { loadProject } from '../src/project/load-project.js';
import { startServer, type RunningServer } from '../src/server/serve.js';
import type { SpendReport } from '../src/use-cases/console-queries.js';
import { cliJson } from './cli-json.js';
import { startFakeOpenAIServer } from './fakes/fake-openai-server.js';
import { usePgCluster } from './fleet-processes.js';
import type { FakeServer } from './fakes/http-fake.js';
import { makeRepo } from './git-fixtures.js';

const cluster = usePgCluster();
const closing: Array<FakeServer | RunningServer> = [];
afterAll(async () => {
  for (const server of closing) await server.close();
});

const NOOP = JSON.stringify({ decision: 'noop', summary: 'nothing to do', findings: [], items: [] });
const TICK_USD = (900 * 0.15 + 60 * 0.6) / 1e6;
const DAY = '2026-11-27';
const START = Date.parse(`${DAY}T10:00:00Z`);

interface Project {
  root: string;
  env: Record<string, string | undefined>;
  command(args: string[]): Promise<unknown>;
}

async function project(model: string, storeEnv: Record<string, string | undefined>): Promise<Project> {
  const done = { toolCalls: [{ name: 'done', arguments: { result: NOOP } }], usage: { input: 900, output: 60 } };
  const server = await startFakeOpenAIServer([done, done]);
  closing.push(server);
  const loopMd = `---\nloop-runtime:\n  verify: ["true"]\n  loops: { daily-triage: { backend: openai, model: ${model}, backendOptions: { baseURL: "${server.url}/v1", apiKey: test-key } } }\n---\n# Loops\n`;
  const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': loopMd });
  let now = START;
  const clock = { now: () => (now += 1000) };
  const env = { ...process.env, NO_COLOR: '1', CI: '', ...storeEnv };
  return {
    root,
    env,
    async command(args) {
      let stdout = '';
      let stderr = '';
      const code = await main([...args, '--json'], { cwd: root, env, isTTY: false, stderrIsTTY: false, clock, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
      expect(code, `${args.join(' ')}: ${stderr}\n${stdout.slice(0, 2000)}`).toBe(0);
      return cliJson(stdout);
    },
  };
}

type MetricsLoop = { pattern: string; ticks: { total: number }; tokens: { total: number }; costUsd: { total: number | null; perTick: number | null; complete: boolean } };

async function metrics(target: Project): Promise<MetricsLoop> {
  const report = (await target.command(['metrics', 'daily-triage', '--no-audit'])) as { loops: MetricsLoop[] };
  return report.loops[0]!;
}

/** The console's spend endpoint, as the page asks it (the token in its header), for daily-triage. */
async function consoleSpend(target: Project): Promise<{ perDay: number[]; costUsdPerDay: Array<number | null>; costCompletePerDay: boolean[] }> {
  const server = await startServer({ repos: [target.root], env: target.env, clock: { now: () => Date.parse(`${DAY}T12:00:00Z`) }, port: 0 });
  closing.push(server);
  const response = await fetch(`${server.url}api/spend?days=2`, { headers: { 'x-loop-runtime-token': server.token } });
  expect(response.status).toBe(200);
  const { repos } = (await response.json()) as { repos: Array<SpendReport & { repo: string }> };
  expect(repos[0]!.days).toEqual(['2026-11-26', DAY]);
  return repos[0]!.loops.find((loop) => loop.id === 'daily-triage')!;
}

/** What the store itself holds: spend per tick and outcome lines (the rows on Postgres, the files otherwise). */
async function stored(target: Project) {
  const loaded = await loadProject(target.root);
  if (!loaded.ok) throw new Error('the project does not load');
  const stores = await openProjectStores(loaded.project, { env: target.env, clock: { now: () => START } });
  return { spend: [...(await stores.spendByTick()).values()], lines: await stores.outcomes().lines(), description: stores.description };
}

const STORES = [
  { store: 'files', described: /^files under/, env: async () => ({ LOOP_RUNTIME_DATABASE_URL: undefined }) },
  { store: 'postgres', described: /^postgres /, env: async () => ({ LOOP_RUNTIME_DATABASE_URL: await cluster.createDatabase('spend') }) },
] as const;

describe.each(STORES)('spend read through the $store store', ({ env: storeEnv, described }) => {
  it('metrics --json and the console spend chart price the same two ticks the same', async () => {
    const target = await project('gpt-4o-mini', await storeEnv());
    await target.command(['run', '--due', '--level', 'L2']);
    await target.command(['run', 'daily-triage', '--level', 'L2']);
    expect((await stored(target)).description).toMatch(described);

    expect(await metrics(target)).toMatchObject({ ticks: { total: 2 }, tokens: { total: 1920 }, costUsd: { total: 2 * TICK_USD, perTick: TICK_USD, complete: true } });
    expect(await consoleSpend(target)).toMatchObject({ perDay: [0, 1920], costUsdPerDay: [0, 2 * TICK_USD], costCompletePerDay: [true, true] });
  });

  it('the twin: a model nobody priced is null in metrics and on the chart, never $0 or a partial sum', async () => {
    const target = await project('house-model', await storeEnv());
    await target.command(['run', '--due', '--level', 'L2']);
    expect(await metrics(target)).toMatchObject({ ticks: { total: 1 }, tokens: { total: 960 }, costUsd: { total: null, perTick: null, complete: false } });
    expect(await consoleSpend(target)).toMatchObject({ perDay: [0, 960], costUsdPerDay: [0, null], costCompletePerDay: [true, false] });
  });

  it('reset --mock removes the rehearsal spend and outcome records from the store; the real tick and its dollars stay', async () => {
    const target = await project('gpt-4o-mini', await storeEnv());
    await target.command(['run', 'daily-triage', '--level', 'L2']);
    const rehearsal = (await target.command(['run', 'daily-triage', '--level', 'L2', '--backend', 'mock'])) as { ticks: Array<{ kind: string }> };
    expect(rehearsal.ticks.map((tick) => tick.kind)).toEqual(['proposed']);

    const before = await stored(target);
    expect(before.spend.filter((tick) => tick.rehearsal).length).toBeGreaterThan(0);
    expect(before.lines.filter((line) => line.type === 'proposal' && line.backend === 'mock')).toHaveLength(1);
    // Readers leave the rehearsal out even before the reset.
    expect(await metrics(target)).toMatchObject({ ticks: { total: 1 }, costUsd: { total: TICK_USD } });
    expect(await consoleSpend(target)).toMatchObject({ perDay: [0, 960], costUsdPerDay: [0, TICK_USD] });

    const ticksInHistory = async () => ((await target.command(['history', 'daily-triage'])) as unknown[]).length;
    expect(await ticksInHistory()).toBe(2);

    const reset = (await target.command(['reset', 'daily-triage', '--mock'])) as { spendLines: number; outcomes: number };
    expect(reset.spendLines).toBeGreaterThan(0);
    expect(reset.outcomes).toBe(1);
    // The rehearsal's tick leaves the history: the run log given back on files, its run-history row on Postgres.
    expect(await ticksInHistory()).toBe(1);

    const after = await stored(target);
    expect(after.spend.filter((tick) => tick.rehearsal)).toEqual([]);
    expect(after.lines.filter((line) => 'backend' in line && line.backend === 'mock')).toEqual([]);
    // The twin: the real tick's spend is still there, priced as before, and every reader says so.
    expect(after.spend).toEqual([expect.objectContaining({ tokens: 960, costUsd: TICK_USD, patternId: 'daily-triage', day: DAY })]);
    expect(await metrics(target)).toMatchObject({ ticks: { total: 1 }, tokens: { total: 960 }, costUsd: { total: TICK_USD } });
    const status = (await target.command(['status'])) as { loops: Array<{ id: string; costUsd?: number | null }> };
    expect(status.loops.find((loop) => loop.id === 'daily-triage')).toMatchObject({ costUsd: TICK_USD });
    expect(await consoleSpend(target)).toMatchObject({ perDay: [0, 960], costUsdPerDay: [0, TICK_USD] });
    // Nothing left to remove: a second reset removes nothing.
    expect(await target.command(['reset', 'daily-triage', '--mock'])).toMatchObject({ spendLines: 0, outcomes: 0, runLogLines: 0, attempts: 0 });
  });
});
