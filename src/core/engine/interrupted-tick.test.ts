/**
 * What the engine makes of a stop signal (the abort every CLI entry point hands it, with the signal's name as its
 * reason): a verification command killed by the stop is no evidence, so the change is kept unverified — no verdict,
 * no failed attempt — and the tick is recorded `interrupted` with a note. Its twin: the same killed command without
 * a stop is a failed command, and the attempt is rejected.
 */
import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../plan/build-plan.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import type { CommandEvidence, CommandRunner, CommandRunOptions } from '../ports/index.js';
import type { CommandSpec } from '../plan/execution-plan.js';
import { LoopEngine } from './loop-engine.js';

/** Passes at the base; the run after the implementer is killed by SIGTERM, and `stop` (when given) is aborted meanwhile. */
class KilledAfterChange implements CommandRunner {
  readonly specificationVersion = 'command-runner-v1' as const;
  readonly isolation = 'scripted';
  runs = 0;
  constructor(
    private readonly now: () => number,
    private readonly stop: AbortController | null,
  ) {}
  async run(command: CommandSpec, _options: CommandRunOptions): Promise<CommandEvidence> {
    this.runs++;
    const base = { command: command.command, timedOut: false, durationMs: 1, finishedAt: this.now() };
    if (this.runs === 1) return { ...base, exitCode: 0, signal: null, output: 'ok' };
    this.stop?.abort('SIGTERM');
    return { ...base, exitCode: null, signal: 'SIGTERM', output: 'killed' };
  }
}

async function tick(stopped: boolean) {
  const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'] } });
  const ports = createMemoryPorts({ plan });
  const stop = stopped ? new AbortController() : null;
  const commands = new KilledAfterChange(() => ports.clock.now(), stop);
  const result = await new LoopEngine(plan, { ...ports, commands, ...(stop ? { signal: stop.signal } : {}) }).tick();
  return { result, ports };
}

describe('a stop signal during the verification command', () => {
  it('keeps the change unverified: paused by the interrupt, no attempt, an interrupted run-log record and a note naming the signal', async () => {
    const { result, ports } = await tick(true);
    expect(result).toMatchObject({ kind: 'paused', source: 'interrupt', kept: { itemKey: expect.any(String) } });
    expect(ports.attempts.records).toEqual([]);
    // The memory workspace names a kept attempt "escalated": waiting for a human, like the git workspace's inbox entry.
    expect(ports.workspace.inspect().map((attempt) => attempt.status)).toEqual(['escalated']);
    expect(ports.state.records).toMatchObject([{ outcome: 'interrupted', kind: 'interrupted', tokens: result.tokens }]);
    expect(ports.state.records[0]!.waiting).toHaveLength(1);
    expect(ports.state.notes.map((note) => note.line).join('\n')).toContain('interrupted by SIGTERM');
    expect(result.steps.map((step) => step.note).join('\n')).toContain('verification interrupted by SIGTERM: the change is not verified');
  });

  it('twin: the same killed command without a stop is a failed command, and the attempt is rejected and recorded', async () => {
    const { result, ports } = await tick(false);
    expect(result.kind).toBe('rejected');
    expect(ports.attempts.records.map((attempt) => attempt.outcome)).toEqual(['failure']);
    expect(ports.state.records.map((record) => record.outcome)).toEqual(['report-only']);
  });
});
