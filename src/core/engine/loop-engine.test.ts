import { describe, expect, it } from 'vitest';
import { MockBackend, type MockScenario } from '../../../backends/mock/index.js';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import type { Level } from '../config/schemas.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { FixedClock } from '../../testing/fixed-clock.js';
import type { EnginePorts } from './engine-ports.js';
import { LoopEngine } from './loop-engine.js';
import type { CommandEvidence, CommandRunner, KillSwitch, StateWriter, TickRecord } from '../ports/index.js';

const pattern = dailyTriagePattern;

class RecordingState implements StateWriter {
  readonly specificationVersion = 'state-writer-v1' as const;
  readonly records: TickRecord[] = [];
  readonly notes: string[] = [];
  async recordTick(record: TickRecord): Promise<void> {
    this.records.push(record);
  }
  async note(_patternId: string, _at: number, line: string): Promise<void> {
    this.notes.push(line);
  }
}

interface Setup {
  level?: Level;
  scenarios?: MockScenario[];
  targetPath?: string;
  cap?: number;
  seedSpent?: number;
  /** Default ['npm test'], run by a passing scripted runner. */
  verify?: string[];
  /** null: no runner at all. */
  runner?: CommandRunner | null;
  killSwitch?: KillSwitch;
  clock?: FixedClock;
}

function setup(options: Setup = {}) {
  const clock = options.clock ?? new FixedClock('2026-11-21T08:00:00Z', 1000);
  const plan = buildPlan(pattern, {
    level: options.level ?? 'L2',
    overrides: { ...(options.cap ? { dailyTokenCap: options.cap } : {}), verify: options.verify ?? ['npm test'] },
  });
  const memory = createMemoryPorts({
    plan,
    clock,
    backend: { scenarios: options.scenarios ?? ['act-accept'], ...(options.targetPath ? { targetPath: options.targetPath } : {}) },
    ...(options.seedSpent ? { seedSpend: { '2026-11-21': { 'daily-triage': options.seedSpent } } } : {}),
    commands: {},
  });
  const state = new RecordingState();
  const ports: EnginePorts = { ...memory, state };
  if (options.runner === null) delete ports.commands;
  else if (options.runner) ports.commands = options.runner;
  if (options.killSwitch) ports.killSwitch = options.killSwitch;
  const engine = new LoopEngine(plan, ports);
  const { backend, budgetLedger: ledger, budget, workspace, attempts } = memory;
  return { engine, plan, backend, state, ledger, budget, workspace, attempts, clock };
}

const roles = (backend: MockBackend) => backend.calls.map((call) => call.role);

describe('LoopEngine', () => {
  it('acts at L2: triage → worktree → implementer → verifier → gate → commit, with spend recorded', async () => {
    const { engine, backend, state, ledger, workspace } = setup();
    const result = await engine.tick();
    expect(result.kind).toBe('proposed');
    if (result.kind !== 'proposed') return;
    expect(roles(backend)).toEqual(['triage', 'implement', 'check']);
    expect(result.changes).toEqual([{ path: 'src/example.ts', status: 'modified', binary: false }]);
    expect(result.verification.verdict).toBe('APPROVE');
    expect(result.gate).toMatchObject({ allowed: true, action: 'commit' });
    expect(result.tokens).toBe(1800 + 420 + 5200 + 1300 + 2600 + 310);
    expect(ledger.entries.map((entry) => entry.phase)).toEqual(['triage', 'implement', 'check']);
    expect(ledger.entries.reduce((sum, entry) => sum + entry.tokens, 0)).toBe(result.tokens);
    expect(result.budget).toEqual({ spentToday: result.tokens, dailyTokenCap: 100_000 });
    expect(state.records).toHaveLength(1);
    expect(state.records[0]).toMatchObject({ outcome: 'fix-proposed', actionsTaken: 1, tokens: result.tokens });
    const [attempt] = workspace.inspect();
    expect(attempt?.status).toBe('committed');
    expect(attempt?.edits['src/example.ts']).toContain('tidied by loop-runtime mock backend');
    expect(attempt?.commit?.trailers).toEqual({ 'Loop-Pattern': 'daily-triage', 'Loop-Tick': result.tickId, 'Loop-Tokens': String(result.tokens) });
  });

  it('only reports at L1: no workspace, no implementer', async () => {
    const { engine, backend, workspace, state } = setup({ level: 'L1' });
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'report', degraded: true, degradedReason: 'level L1 only reports' });
    expect(roles(backend)).toEqual(['triage']);
    expect(workspace.inspect()).toEqual([]);
    expect(state.records[0]?.outcome).toBe('report-only');
  });

  it('runs nothing at L0', async () => {
    const { engine, backend, state } = setup({ level: 'L0' });
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'halted', reason: 'level-l0', tokens: 0 });
    expect(backend.calls).toEqual([]);
    expect(state.records).toEqual([]);
    expect(state.notes).toEqual([]);
  });

  it('maps noop and report decisions to the run log outcomes', async () => {
    const { engine, state } = setup({ scenarios: ['noop', 'report'] });
    expect((await engine.tick()).kind).toBe('noop');
    expect((await engine.tick()).kind).toBe('report');
    expect(state.records.map((record) => record.outcome)).toEqual(['no-op', 'report-only']);
  });

  it('rejects twice, then escalates the third failed attempt on the same item and keeps its workspace', async () => {
    const { engine, workspace, state } = setup({ scenarios: ['reject'] });
    const results = [await engine.tick(), await engine.tick(), await engine.tick()];
    expect(results.map((result) => result.kind)).toEqual(['rejected', 'rejected', 'escalated']);
    expect(results[0]).toMatchObject({ attempt: 1, attemptsLeft: 2 });
    expect(results[2]).toMatchObject({ attempt: 3 });
    expect(workspace.inspect().map((attempt) => attempt.status)).toEqual(['rejected', 'rejected', 'escalated']);
    expect(state.records[2]?.waiting[0]?.itemKey).toBe('mock#1');
    expect(state.records.map((record) => record.outcome)).toEqual(['report-only', 'report-only', 'escalated']);
  });

  it('keeps the workspace when the verifier asks for a human', async () => {
    const { engine, workspace } = setup({ scenarios: ['escalate'] });
    const result = await engine.tick();
    expect(result.kind).toBe('escalated');
    expect(workspace.inspect()[0]?.status).toBe('escalated');
  });

  it('escalates a change touching a denylisted path, whatever the verifier says', async () => {
    const { engine, workspace } = setup({ targetPath: '.env' });
    const result = await engine.tick();
    expect(result.kind).toBe('escalated');
    if (result.kind !== 'escalated') return;
    expect(result.verification?.verdict).toBe('APPROVE');
    expect(result.gate).toMatchObject({ allowed: false, trigger: 'denylist', matchedPaths: ['.env'] });
    expect(workspace.inspect()[0]?.status).toBe('escalated');
  });

  it('never approves when a verification command fails, even if the checker approves', async () => {
    const runner: CommandRunner = {
      specificationVersion: 'command-runner-v1',
      isolation: 'test',
      async run(command, options): Promise<CommandEvidence> {
        return { command: command.command, exitCode: 1, signal: null, timedOut: false, durationMs: 5, output: `ran in ${options.cwd}`, finishedAt: Number.MAX_SAFE_INTEGER };
      },
    };
    const { engine } = setup({ verify: ['npm test'], runner });
    const result = await engine.tick();
    expect(result.kind).toBe('rejected');
    if (result.kind !== 'rejected') return;
    expect(result.reasons).toEqual(['`npm test` failed with exit code 1']);
    expect(result.verification?.evidence[0]?.output).toMatch(/^ran in memory:\//);
  });

  it('rejects when verification commands are configured but no runner was injected', async () => {
    const { engine } = setup({ verify: ['npm test'], runner: null });
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'rejected', reasons: [expect.stringContaining('no command runner')] });
  });

  it('calls no backend while the kill switch is set, and notes it', async () => {
    const { engine, backend, state } = setup({ killSwitch: { specificationVersion: 'kill-switch-v1', check: async () => ({ paused: true, source: 'file loop-pause-all' }) } });
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'paused', source: 'file loop-pause-all' });
    expect(backend.calls).toEqual([]);
    expect(state.notes).toEqual(['Loop paused by file loop-pause-all; no backend was called.']);
  });

  it('stops before the next phase when the kill switch is set mid-tick', async () => {
    let checks = 0;
    const { engine, backend } = setup({ killSwitch: { specificationVersion: 'kill-switch-v1', check: async () => ({ paused: ++checks > 2, source: 'env LOOP_RUNTIME_PAUSE' }) } });
    const result = await engine.tick();
    expect(roles(backend)).toEqual(['triage']);
    expect(result).toMatchObject({ kind: 'report', degradedReason: 'kill switch (env LOOP_RUNTIME_PAUSE)' });
  });

  it('degrades to report-only at 80% of the cap', async () => {
    const { engine, backend } = setup({ seedSpent: 79_000 });
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'report', degraded: true });
    expect(result.kind === 'report' && result.degradedReason).toMatch(/^budget at 81%/);
    expect(roles(backend)).toEqual(['triage']);
  });

  it('halts at 100% with a one-line note and calls no backend', async () => {
    const { engine, backend, state } = setup({ seedSpent: 100_000 });
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'halted', reason: 'budget-exhausted' });
    expect(backend.calls).toEqual([]);
    expect(state.notes).toHaveLength(1);
    expect(state.notes[0]).toMatch(/^Loop halted: Daily token cap reached: 100,000 \/ 100,000 tokens spent on 2026-11-21/);
  });

  it('does not start a phase whose reservation would cross the cap', async () => {
    // 62,000 spent: triage's reservation (10,000) fits; after triage 64,220 are spent and the implementer's 40,000 would not fit.
    const { engine, backend, ledger } = setup({ seedSpent: 62_000 });
    const result = await engine.tick();
    expect(roles(backend)).toEqual(['triage']);
    expect(result).toMatchObject({ kind: 'report', degradedReason: 'budget' });
    expect((await ledger.spentOn('2026-11-21', 'daily-triage')) <= 100_000).toBe(true);
  });

  it('never lets the ledger go over the cap, however many ticks run', async () => {
    const { engine, ledger } = setup({ cap: 40_000 });
    const results = await engine.ticks(100);
    expect(results[results.length - 1]?.kind).toBe('halted');
    expect(await ledger.spentOn('2026-11-21', 'daily-triage')).toBeLessThanOrEqual(40_000);
  });

  it('rolls the budget over at 00:00 UTC', async () => {
    const clock = new FixedClock('2026-11-21T23:59:00Z');
    const { engine } = setup({ seedSpent: 100_000, clock });
    expect((await engine.tick()).kind).toBe('halted');
    clock.set('2026-11-22T00:00:01Z');
    expect((await engine.tick()).kind).toBe('proposed');
  });

  it('records the real spend of a backend that overran its reservation and stops the loop', async () => {
    const { engine, ledger } = setup({ scenarios: ['over-budget'] });
    const result = await engine.tick();
    expect(result).toMatchObject({ kind: 'halted', reason: 'budget-overrun' });
    expect(ledger.entries.map((entry) => entry.phase)).toEqual(['triage', 'implement']);
    expect(ledger.entries[1]?.tokens).toBe(40_000 + 1);
  });

  it('escalates the third failure on an item, then opens the circuit on the same error three times in a row', async () => {
    const { engine, backend } = setup({ scenarios: ['error'] });
    const results = await engine.ticks(5);
    expect(results.map((result) => result.kind)).toEqual(['failed', 'failed', 'escalated', 'halted']);
    expect(results[3]).toMatchObject({ reason: 'circuit-open' });
    expect(results[3]?.kind === 'halted' && results[3].message).toMatch(/same error happened 3 times/);
    expect(backend.calls.filter((call) => call.tickId === results[3]?.tickId)).toEqual([]);
  });

  it('passes every item the probes found to triage, and skips the model when they find nothing', async () => {
    const plan = buildPlan(pattern, { level: 'L2', overrides: { probes: [{ name: 'failing-ci', command: 'gh run list', found: 'json-entries', timeoutSeconds: 5 }] } });
    const seen: unknown[] = [];
    const backend = new MockBackend({ scenarios: ['report'] });
    const spy: typeof backend.run = async (request) => {
      seen.push(request.role === 'triage' ? request.discovered : undefined);
      return backend.run(request);
    };
    let found = true;
    const engine = new LoopEngine(plan, {
      ...createMemoryPorts({ plan }),
      backend: { specificationVersion: 'agent-backend-v2', name: 'spy', run: spy },
      state: new RecordingState(),
      discovery: {
        specificationVersion: 'discovery-v1',
        discover: async () => ({
          found,
          notes: [found ? 'failing-ci: 2 found' : 'failing-ci: nothing'],
          items: found ? [{ key: 'run#1', title: 'build failed' }, { key: 'run#2', title: 'lint failed' }] : [],
        }),
      },
    });
    expect((await engine.tick()).kind).toBe('report');
    expect(seen).toEqual([[{ key: 'run#1', title: 'build failed' }, { key: 'run#2', title: 'lint failed' }]]);
    found = false;
    const quiet = await engine.tick();
    expect(quiet).toMatchObject({ kind: 'noop', tokens: 0 });
    expect(seen).toHaveLength(1);
  });
});
