/**
 * Replay: a real tick (the real `claude` binary against the local fake
 * Anthropic API, a real git worktree, verification in bubblewrap) is
 * recorded at its ports; replaying the history through a fresh LoopEngine
 * gives the identical TickResult and the identical call sequence. Recorded
 * histories are kept in test/fixtures/replay/ as regression fixtures: a
 * change to the engine that alters what it asks its ports, or what it makes
 * of their answers, fails here. Refresh them deliberately with
 * `LOOP_RUNTIME_UPDATE_REPLAY=1 npx vitest run test/replay.test.ts`.
 */
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LoopEngine } from '../src/core/engine/loop-engine.js';
import { loadProject, resolvePlan } from '../src/project/load-project.js';
import { createLoopRuntime } from '../src/composition/create-runtime.js';
import { recordPorts, replayPorts, type ReplayHistory } from '../src/replay/port-history.js';
import { startFakeAnthropicServer, text, toolUse, type AnthropicStep } from './fakes/fake-anthropic-server.js';
import { ADD_BUG_TRIAGE, BUGGY_ADD_PROJECT, CLAUDE, makeLoopRepo, worktreeOf } from './e2e-fixtures.js';
import { cleanupTempDirs } from './git-fixtures.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'replay');
const UPDATE = process.env.LOOP_RUNTIME_UPDATE_REPLAY === '1';
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
  await cleanupTempDirs();
});

/** Triage acts; the implementer edits `to`; the checker says `verdict`. */
function script(to: string, verdict: string): AnthropicStep[] {
  return [
    text(ADD_BUG_TRIAGE, { input: 1200, output: 80 }),
    // Claude's Edit tool refuses a file it has not read in this session.
    (request) => toolUse('Read', { file_path: join(worktreeOf(request), 'src/add.mjs') }, { input: 1500, output: 30 }),
    (request) => toolUse('Edit', { file_path: join(worktreeOf(request), 'src/add.mjs'), old_string: 'a - b', new_string: to }, { input: 1700, output: 40 }),
    text('Changed add().', { input: 1800, output: 20 }),
    text(`Reviewed.\n## Verdict: ${verdict}\n- looked at the diff`, { input: 900, output: 25 }),
  ];
}

/** Runs one real tick through recorded ports; returns the live result and the history. */
async function recordRealTick(steps: AnthropicStep[]): Promise<ReplayHistory> {
  const server = await startFakeAnthropicServer(steps);
  cleanups.push(() => server.close());
  const home = await mkdtemp(join(tmpdir(), 'loop-replay-home-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const repo = await makeLoopRepo(BUGGY_ADD_PROJECT, {
    backend: 'claude-code',
    level: 'L2',
    verify: ['node --test test/'],
    backendOptions: { binary: CLAUDE, home, maxRetries: 0, maxTurns: 8, timeoutMs: 600_000, killGraceMs: 500 },
  });
  const loaded = await loadProject(repo);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const resolved = await resolvePlan(loaded.project, 'daily-triage');
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
  const env = { PATH: process.env.PATH, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'dummy', CLAUDE_CODE_MAX_RETRIES: '0', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  const runtime = await createLoopRuntime(loaded.project, resolved.plan, { dryRun: false, env });
  try {
    const recorder = recordPorts(runtime.ports);
    const result = await new LoopEngine(runtime.engine.plan, recorder.ports).tick();
    return recorder.history(runtime.engine.plan, result);
  } finally {
    await runtime.close();
  }
}

async function replay(history: ReplayHistory) {
  const replayed = replayPorts(history);
  const result = await new LoopEngine(history.plan, replayed.ports).tick().catch((error: unknown) => {
    throw new Error(`${String(error)}\nfirst mismatch: ${replayed.mismatches()[0] ?? 'none'}`);
  });
  return { result, mismatches: replayed.mismatches(), remaining: replayed.remaining() };
}

describe('replay of recorded ticks', () => {
  it.each([
    ['claude-proposed', 'a + b', 'APPROVE', 'proposed'],
    ['claude-rejected-by-tests', 'a * b', 'APPROVE', 'rejected'],
  ])('%s: a real tick replays to the identical result and call sequence', async (name, to, verdict, kind) => {
    const history = await recordRealTick(script(to, verdict));
    expect(history.result.kind, JSON.stringify(history.result).slice(0, 3000)).toBe(kind);
    expect(history.calls.map((call) => call.port)).toEqual(expect.arrayContaining(['backend', 'workspace', 'budget', 'state', 'commands']));
    const replayed = await replay(JSON.parse(JSON.stringify(history)) as ReplayHistory);
    expect(replayed.mismatches).toEqual([]);
    expect(replayed.remaining).toBe(0);
    expect(replayed.result).toEqual(history.result);
    if (UPDATE) {
      await mkdir(FIXTURES, { recursive: true });
      await writeFile(join(FIXTURES, `${name}.json`), `${JSON.stringify(history, null, 1)}\n`);
    }
  });

  it('every kept fixture replays to its recorded result, call for call', async () => {
    const files = (await readdir(FIXTURES)).filter((file) => file.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const file of files) {
      const history = JSON.parse(await readFile(join(FIXTURES, file), 'utf8')) as ReplayHistory;
      const replayed = await replay(history);
      expect({ file, mismatches: replayed.mismatches, remaining: replayed.remaining }).toEqual({ file, mismatches: [], remaining: 0 });
      expect(replayed.result).toEqual(history.result);
    }
  });

  it('a history that no longer matches the engine is caught, not silently replayed', async () => {
    const [file] = (await readdir(FIXTURES)).filter((name) => name.endsWith('.json')).sort();
    const history = JSON.parse(await readFile(join(FIXTURES, file!), 'utf8')) as ReplayHistory;
    // The recorded triage answer now names a different item: the engine asks the workspace for another item.
    const triage = history.calls.find((call) => call.port === 'backend')!;
    const answer = triage.result as { output: { items: Array<{ key: string }> } };
    answer.output.items[0]!.key = 'bug#2';
    const replayed = replayPorts(history);
    await expect(new LoopEngine(history.plan, replayed.ports).tick()).rejects.toThrow(/replay mismatch/);
    expect(replayed.mismatches()[0]).toMatch(/call \d+: the engine called items\.acquire\(.*bug#2.*but the recording has items\.acquire\(.*bug#1/);
  });
});
