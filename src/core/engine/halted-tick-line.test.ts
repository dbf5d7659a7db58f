/**
 * Every halted tick leaves a run-log line (`halted-tick`, with its reason), once per tick, and that line never
 * becomes a persisted halt or a counted run. The twin: a sticky halt's own `halted` line is its tick's line (no second).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MockBackend } from '../../../backends/mock/index.js';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { FileStateWriter } from '../../adapters/state-writer/file-state-writer.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import type { AgentBackend, AttemptRecord } from '../ports/index.js';
import { activeHalt } from '../state/halt-lines.js';
import { parseRunLog, runsOnDay } from '../state/run-log.js';
import { LoopEngine } from './loop-engine.js';

const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'] } });
const failure = (error: string): AttemptRecord => ({ patternId: plan.pattern.id, itemKey: 'mock#1', tickId: 't', at: 0, outcome: 'failure', error, tokensUsed: 10 });
const openCircuit = [failure('tests failed'), failure('tests failed'), failure('tests failed')];

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

describe('a halted tick leaves a run-log line', () => {
  it('circuit open: one halted-tick line per refused tick, with its reason, no model call', async () => {
    const ports = createMemoryPorts({ plan, commands: {}, attempts: openCircuit });
    const engine = new LoopEngine(plan, ports);
    expect(await engine.tick()).toMatchObject({ kind: 'halted', reason: 'circuit-open' });
    expect(await engine.tick()).toMatchObject({ kind: 'halted', reason: 'circuit-open' });
    expect(ports.backend.calls).toEqual([]);
    expect(ports.state.records.map((record) => [record.kind, record.reason, record.outcome])).toEqual([
      ['halted-tick', 'circuit-open', 'no-op'],
      ['halted-tick', 'circuit-open', 'no-op'],
    ]);
  });

  it('in the real run log: the line names the reason and message, halts nothing and counts as no run', async () => {
    const root = await mkdtemp(join(tmpdir(), 'halted-tick-'));
    roots.push(root);
    const ports = createMemoryPorts({ plan, commands: {}, attempts: openCircuit });
    const state = new FileStateWriter({ root, stateFile: 'STATE.md', runLog: 'loop-run-log.md' });
    const result = await new LoopEngine(plan, { ...ports, state }).tick();
    const entries = parseRunLog(await readFile(join(root, 'loop-run-log.md'), 'utf8'));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ tick_id: result.tickId, kind: 'halted-tick', reason: 'circuit-open', outcome: 'no-op' });
    expect(String(entries[0]!['message'])).toContain('Circuit breaker open');
    // Not the persisted halt a human clears (the circuit is recomputed every tick), and not a run for Max runs/day.
    expect(activeHalt(entries, plan.pattern.id)).toBeNull();
    expect(runsOnDay(await readFile(join(root, 'loop-run-log.md'), 'utf8'), plan.pattern.id, entries[0]!.run_id.slice(0, 10))).toBe(0);
    expect(await readFile(join(root, 'STATE.md'), 'utf8')).toContain('Circuit breaker open');
  });

  it('awaiting resume and the daily cap: each refused tick has its line', async () => {
    const halted = createMemoryPorts({ plan, commands: {} });
    await halted.killSwitch.halt({ patternId: plan.pattern.id, reason: 'backend-stopped', message: 'logged out', tickId: 't0', startedAt: 0, at: 0, tokens: 0 });
    expect(await new LoopEngine(plan, halted).tick()).toMatchObject({ kind: 'halted', reason: 'awaiting-resume' });
    expect(halted.state.records.map((record) => record.reason)).toEqual(['awaiting-resume']);

    const capped = createMemoryPorts({ plan, commands: {}, seedSpend: { '2026-11-21': { [plan.pattern.id]: plan.dailyTokenCap } } });
    expect(await new LoopEngine(plan, capped).tick()).toMatchObject({ kind: 'halted', reason: 'budget-exhausted' });
    expect(capped.state.records.map((record) => record.reason)).toEqual(['budget-exhausted']);
  });

  it('the twin: a sticky halt writes its halt line (kill switch) and no second halted-tick line', async () => {
    const ports = createMemoryPorts({ plan, commands: {} });
    const inner = new MockBackend();
    const overspends: AgentBackend = {
      specificationVersion: 'agent-backend-v2',
      name: 'overspends',
      async run(request) {
        const answer = await inner.run(request);
        return { ...answer, usage: { ...answer.usage, inputTokens: request.maxTokens, outputTokens: 1 } };
      },
    };
    expect(await new LoopEngine(plan, { ...ports, backend: overspends }).tick()).toMatchObject({ kind: 'halted', reason: 'budget-overrun' });
    expect(ports.state.records).toEqual([]);
    expect(await ports.killSwitch.check()).toMatchObject({ halt: { reason: 'budget-overrun' } });
  });
});
