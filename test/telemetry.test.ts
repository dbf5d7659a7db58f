/**
 * OpenTelemetry through the SDK's in-memory exporters: one trace per tick,
 * phases as spans, model calls as GenAI spans with the semantic-convention
 * attributes, token counters — and nothing breaks the tick.
 */
import { metrics, trace } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPlan } from '../src/core/plan/build-plan.js';
import { LoopEngine } from '../src/core/engine/loop-engine.js';
import { createMemoryPorts } from '../src/testing/create-memory-ports.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { telemetryObserver } from '../src/adapters/telemetry/telemetry.js';
import { dailyTriagePattern } from './fixtures/patterns.js';

const spans = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));

afterAll(() => {
  trace.disable();
  metrics.disable();
});

describe('tick telemetry', () => {
  it('records a tick as a trace with phase spans and GenAI model-call spans', async () => {
    const clock = new FixedClock('2026-11-21T08:00:00Z', 1000);
    const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'], model: 'claude-sonnet-4-5' } });
    const ports = createMemoryPorts({ plan, clock, backend: { scenarios: ['act-accept'] }, commands: {} });
    const engine = new LoopEngine(plan, { ...ports, observer: telemetryObserver(plan) });
    const result = await engine.tick();
    expect(result.kind).toBe('proposed');

    const finished = spans.getFinishedSpans();
    const tick = finished.find((span) => span.name === 'loop.tick daily-triage')!;
    expect(tick.attributes).toMatchObject({ 'loop.pattern': 'daily-triage', 'loop.level': 'L2', 'loop.tick.kind': 'proposed' });
    const inTrace = finished.filter((span) => span.spanContext().traceId === tick.spanContext().traceId);
    expect(inTrace.length).toBe(finished.length);
    const phases = inTrace.filter((span) => span.name.startsWith('loop.phase ')).map((span) => span.name.slice('loop.phase '.length));
    expect(phases).toEqual(expect.arrayContaining(['triage', 'implement', 'verify', 'check', 'gate', 'commit']));
    const calls = inTrace.filter((span) => span.name === 'chat claude-sonnet-4-5');
    expect(calls.map((span) => span.attributes['loop.phase'])).toEqual(['triage', 'implement', 'check']);
    for (const call of calls) {
      expect(call.attributes['gen_ai.operation.name']).toBe('chat');
      expect(call.attributes['gen_ai.request.model']).toBe('claude-sonnet-4-5');
      expect(call.attributes['gen_ai.provider.name']).toBe('mock');
      expect(call.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(call.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      // Each model call hangs under its phase's span, and its times come from the injected clock.
      const parent = inTrace.find((span) => span.spanContext().spanId === call.parentSpanContext?.spanId);
      expect(parent?.name).toBe(`loop.phase ${String(call.attributes['loop.phase'])}`);
    }
    expect(tick.startTime[0]).toBe(result.startedAt / 1000);
    expect(tick.endTime[0]).toBe(result.finishedAt / 1000);

    await reader.forceFlush();
    const exported = metricExporter.getMetrics().flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics));
    const tokens = exported.find((metric) => metric.descriptor.name === 'loop.tokens');
    const total = tokens!.dataPoints.reduce((sum, point) => sum + Number(point.value), 0);
    expect(total).toBe(result.tokens);
    expect(exported.find((metric) => metric.descriptor.name === 'loop.ticks')!.dataPoints[0]!.attributes).toMatchObject({ 'loop.tick.kind': 'proposed' });
  });

  it('never lets a broken telemetry pipeline change a tick', async () => {
    const clock = new FixedClock('2026-11-21T09:00:00Z', 1000);
    const plan = buildPlan(dailyTriagePattern, { level: 'L1' });
    const observe = telemetryObserver(plan);
    const ports = createMemoryPorts({ plan, clock, backend: { scenarios: ['report'] } });
    // An event for a tick telemetry never saw start, and a malformed one, are ignored.
    expect(() => observe({ type: 'phase-end', tickId: 'unknown', phase: 'triage', at: 0, tokens: 1 })).not.toThrow();
    const result = await new LoopEngine(plan, { ...ports, observer: observe }).tick();
    expect(result.kind).toBe('report');
  });
});
