/**
 * The tick session (what surrounds a tick for `run` and a fleet worker)
 * repeated for one tick, as a fleet tick resumed on another worker repeats
 * it: the second run replays the same events at the same times (the step
 * clock) and finishes the same tick. The journal gets each line once, the
 * proposal is recorded once, and telemetry counts the tick and its tokens
 * once while still giving the resumed run a whole trace.
 */
import { metrics, trace } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LoopEngine } from '../src/core/engine/loop-engine.js';
import type { TickResult } from '../src/core/engine/tick-result.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import { workflowIds } from '../src/fleet/durable-ports.js';
import type { LoadedProject } from '../src/project/load-project.js';
import { WorktreeStore } from '../src/adapters/workspace/git-worktree-store.js';
import { readTickEvents } from '../src/adapters/tick-events/tick-events.js';
import { openTickSession } from '../src/composition/tick-session.js';
import { createMemoryPorts } from '../src/testing/create-memory-ports.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { dailyTriagePattern } from './fixtures/patterns.js';
import { cleanupTempDirs, makeRepo, sh } from './git-fixtures.js';
import { outcomeStoreFor } from '../src/composition/stores/file-stores.js';

const spans = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));

afterAll(async () => {
  trace.disable();
  metrics.disable();
  await cleanupTempDirs();
});

const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test', 'npm run lint'] } });

/**
 * One run of the tick `tick-wf:1` inside a session: the same times and ids on every run, as a replay has. The clock
 * stands still, as the step clock does between two steps: many events share one time.
 */
async function runOnce(project: LoadedProject, resumed: boolean): Promise<{ result: TickResult; proposals: number }> {
  const clock = new FixedClock('2026-11-23T08:00:00Z');
  const session = await openTickSession({ project, plan, clock, env: {}, outcomes: outcomeStoreFor(project.root), dryRun: false, resume: { tickId: 'tick-wf:1', resumed } });
  const ports = createMemoryPorts({ plan, clock, backend: { scenarios: ['act-accept'] }, commands: {} });
  const result = await new LoopEngine(plan, { ...ports, ids: workflowIds('wf:1'), observer: session.observer }).tick();
  const { proposals } = await session.finish([result]);
  return { result, proposals };
}

async function counted(name: string): Promise<number> {
  await reader.forceFlush();
  const exported = metricExporter.getMetrics().at(-1)?.scopeMetrics.flatMap((scope) => scope.metrics) ?? [];
  return exported.find((metric) => metric.descriptor.name === name)?.dataPoints.reduce((sum, point) => sum + Number(point.value), 0) ?? 0;
}

describe('a tick session run twice for one tick (a resumed fleet tick)', () => {
  it('journals each event once, records the proposal once, counts the tick once', async () => {
    const root = await makeRepo({ 'README.md': '# demo\n' });
    const project = { root, settings: null } as unknown as LoadedProject;

    const first = await runOnce(project, false);
    expect(first.result).toMatchObject({ kind: 'proposed', tickId: 'tick-wf:1' });
    expect(first.proposals).toBe(1);
    const journal = await readTickEvents(root);
    expect(journal.map((line) => line.type)).toEqual(expect.arrayContaining(['tick-start', 'phase-start', 'phase-end', 'backend-call', 'tick-end', 'tick-result']));
    // Two verification commands at one time are two lines (each time the tick verifies).
    const verified = journal.flatMap((line) => (line.type === 'phase-start' && line.phase === 'verify' ? [line.detail] : []));
    expect(verified.slice(0, 2)).toEqual(['npm test', 'npm run lint']);
    expect(verified.filter((detail) => detail === 'npm run lint')).toHaveLength(verified.length / 2);
    expect(await counted('loop.ticks')).toBe(1);
    expect(await counted('loop.tokens')).toBe(first.result.tokens);
    const tickSpans = () => spans.getFinishedSpans().filter((span) => span.name === 'loop.tick daily-triage').length;
    expect(tickSpans()).toBe(1);

    const second = await runOnce(project, true);
    expect(second.result.tickId).toBe('tick-wf:1');
    expect(second.proposals).toBe(0);
    expect(await readTickEvents(root)).toEqual(journal);
    const outcomes = (await readFile(join(root, '.loop-runtime', 'outcomes.jsonl'), 'utf8')).split('\n').filter(Boolean);
    expect(outcomes).toHaveLength(1);
    // The resumed run's trace is whole (its spans are emitted again); its replayed events are not counted again.
    expect(tickSpans()).toBe(2);
    expect(await counted('loop.ticks')).toBe(1);
    expect(await counted('loop.tokens')).toBe(first.result.tokens);
  });

  it("recovery at a resumed tick's start leaves that tick's own commit to it; any other start recovers it", async () => {
    const root = await makeRepo({ 'README.md': '# demo\n' });
    const project = { root, settings: null } as unknown as LoadedProject;
    const commit = sh(root, ['rev-parse', 'HEAD']).trim();
    // What a worker killed after its commit and before its run-log line leaves: a merged entry, no run-log line.
    await new WorktreeStore(root, null).update(async (manifest) => ({
      manifest: {
        ...manifest,
        worktrees: [
          ...manifest.worktrees,
          { id: 'mock-1-x', path: 'worktrees/mock-1-x', branch: 'loop/daily-triage/mock-1-x', baseBranch: null, pattern: 'daily-triage', createdAt: '2026-11-23T07:59:00.000Z', updatedAt: '2026-11-23T07:59:30.000Z', status: 'merged', tickId: 'tick-wf:2', commit },
        ],
      },
      result: undefined,
    }));
    const clock = new FixedClock('2026-11-23T08:00:00Z');
    const resumed = await openTickSession({ project, plan, clock, env: {}, outcomes: outcomeStoreFor(project.root), dryRun: false, resume: { tickId: 'tick-wf:2', resumed: true } });
    expect(resumed.recovery).toBeNull();
    const next = await openTickSession({ project, plan, clock, env: {}, outcomes: outcomeStoreFor(project.root), dryRun: false });
    expect(next.recovery?.recoveredTicks).toEqual([expect.objectContaining({ tickId: 'tick-wf:2', commit })]);
  });
});
