/**
 * OpenTelemetry over the wire: the real OTLP/HTTP exporters
 * (`@opentelemetry/exporter-trace-otlp-http`, `…-metrics-otlp-http`, which
 * send OTLP as `application/json`) registered as the host's SDK, a tick run
 * through `openRuntime` (the CLI's path), and a small OTLP/HTTP receiver on
 * 127.0.0.1 that decodes what arrives at POST /v1/traces and /v1/metrics.
 * One trace per tick, phases as child spans, model calls as GenAI spans, the
 * token counter — with times from the injected clock.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metrics, trace } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../src/composition/runtime.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { cleanupTempDirs, makeRepo } from './git-fixtures.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}
type OtlpValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: OtlpValue }>;
}

const received: Received[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const known = request.method === 'POST' && (request.url === '/v1/traces' || request.url === '/v1/metrics');
    if (!known) return void response.writeHead(404).end();
    // This receiver speaks OTLP/JSON only; a protobuf body would fail the content-type assertion below.
    const text = Buffer.concat(chunks).toString('utf8');
    received.push({ path: request.url!, headers: request.headers, body: request.headers['content-type']?.includes('json') ? (JSON.parse(text) as Record<string, unknown>) : { raw: text } });
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

let url: string;
let tracerProvider: BasicTracerProvider;
let meterProvider: MeterProvider;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${url}/v1/traces` }))] });
  meterProvider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: `${url}/v1/metrics` }), exportIntervalMillis: 3_600_000 })] });
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
});

afterAll(async () => {
  trace.disable();
  metrics.disable();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  await new Promise((resolve) => receiver.close(resolve));
  await cleanupTempDirs();
});

const attributes = (list: Array<{ key: string; value: OtlpValue }>): Record<string, unknown> =>
  Object.fromEntries(list.map(({ key, value }) => [key, value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue))]));

const LOOP_MD = '---\nloop-runtime:\n  backend: mock\n  model: claude-sonnet-4-5\n  loops:\n    daily-triage:\n      level: L2\n---\n# Loops\n';

describe('telemetry to an OTLP/HTTP receiver', () => {
  it('receives a tick as one trace: phase spans under the tick, GenAI spans per model call, and the token counter', async () => {
    const root = await makeRepo({ 'LOOP.md': LOOP_MD, 'src/example.ts': 'export const answer = 42;\n' });
    const clock = new FixedClock('2026-11-21T08:00:00Z', 1000);
    const opened = await openRuntime({ cwd: root, env: { PATH: process.env.PATH }, clock });
    if (!opened.ok) throw new Error(JSON.stringify(opened.issues));
    const run = await opened.runtime.run('daily-triage', { dryRun: true });
    if (!run.ok) throw new Error(JSON.stringify(run.issues));
    const tick = run.value.ticks[0]!;
    await tracerProvider.forceFlush();
    await meterProvider.forceFlush();

    const traces = received.filter((entry) => entry.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    for (const entry of traces) expect(entry.headers['content-type']).toBe('application/json');
    const spans = traces.flatMap((entry) =>
      (entry.body.resourceSpans as Array<{ scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] } > }>).flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ ...span, scope: scope.scope.name, attributes: attributes(span.attributes) }))),
      ),
    );
    const root_ = spans.find((span) => span.name === 'loop.tick daily-triage')!;
    expect(root_).toBeDefined();
    expect(root_.scope).toBe('loop-runtime');
    expect(root_.attributes).toMatchObject({ 'loop.pattern': 'daily-triage', 'loop.level': 'L2', 'loop.tick.id': tick.tickId, 'loop.tick.kind': tick.kind });
    // Times are the injected clock's, in nanoseconds.
    expect(root_.startTimeUnixNano).toBe(`${tick.startedAt}000000`);
    expect(root_.endTimeUnixNano).toBe(`${tick.finishedAt}000000`);
    expect(spans.every((span) => span.traceId === root_.traceId)).toBe(true);

    const phases = spans.filter((span) => span.name.startsWith('loop.phase '));
    expect(phases.map((span) => span.name)).toEqual(expect.arrayContaining(['loop.phase triage', 'loop.phase implement', 'loop.phase check']));
    for (const phase of phases) expect(phase.parentSpanId).toBe(root_.spanId);

    const calls = spans.filter((span) => span.name === 'chat claude-sonnet-4-5');
    expect(calls.map((span) => span.attributes['loop.phase'])).toEqual(['triage', 'implement', 'check']);
    let callTokens = 0;
    for (const call of calls) {
      expect(call.kind).toBe(3); // SPAN_KIND_CLIENT
      expect(call.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'mock', 'gen_ai.request.model': 'claude-sonnet-4-5' });
      expect(call.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(call.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      callTokens += Number(call.attributes['gen_ai.usage.input_tokens']) + Number(call.attributes['gen_ai.usage.output_tokens']);
      expect(phases.find((phase) => phase.spanId === call.parentSpanId)?.name).toBe(`loop.phase ${String(call.attributes['loop.phase'])}`);
    }
    expect(callTokens).toBe(tick.tokens);

    const metricsBodies = received.filter((entry) => entry.path === '/v1/metrics');
    expect(metricsBodies.length).toBeGreaterThan(0);
    expect(metricsBodies[0]!.headers['content-type']).toBe('application/json');
    const exported = metricsBodies.flatMap((entry) =>
      (entry.body.resourceMetrics as Array<{ scopeMetrics: Array<{ metrics: Array<{ name: string; sum?: { dataPoints: Array<{ asInt?: string | number; asDouble?: number; attributes: Array<{ key: string; value: OtlpValue }> }> } }> }> }>).flatMap((resource) =>
        resource.scopeMetrics.flatMap((scope) => scope.metrics),
      ),
    );
    const tokens = exported.find((metric) => metric.name === 'loop.tokens')!;
    expect(tokens.sum!.dataPoints.reduce((sum, point) => sum + Number(point.asInt ?? point.asDouble ?? 0), 0)).toBe(tick.tokens);
    expect(attributes(tokens.sum!.dataPoints[0]!.attributes)).toMatchObject({ 'loop.pattern': 'daily-triage', 'gen_ai.request.model': 'claude-sonnet-4-5' });
    const ticks = exported.find((metric) => metric.name === 'loop.ticks')!;
    expect(attributes(ticks.sum!.dataPoints[0]!.attributes)).toMatchObject({ 'loop.tick.kind': tick.kind });
  });
});
