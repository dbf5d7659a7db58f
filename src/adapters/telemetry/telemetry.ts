/**
 * OpenTelemetry for ticks, through `@opentelemetry/api` only: without an SDK
 * registered by the host every call is a no-op. Built from the engine's
 * observer events, so the core stays pure:
 *
 * - one trace per tick: span `loop.tick <id>` (tick-start → tick-end) with
 *   `loop.pattern`, `loop.level`, `loop.tick.kind`;
 * - a child span per phase (`loop.phase <phase>`), from its phase-start (or
 *   the previous step) to its phase-end, with the tokens it spent;
 * - per backend call a GenAI span `chat <model>` under its phase, following
 *   the GenAI semantic conventions: `gen_ai.operation.name`,
 *   `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens`,
 *   `gen_ai.usage.output_tokens`, plus `loop.cost_usd` when known;
 * - counters `loop.tokens`, `loop.cost_usd`, `loop.ticks` and
 *   `loop.outcomes` (from `outcomes sync`).
 *
 * Times come from the events (the injected clock), so a fixed clock gives
 * fixed spans. An exception inside telemetry never reaches the engine.
 */
import { context, metrics, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { EngineEvent, EngineObserver } from '../../core/ports/index.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';
import type { SyncReport } from '../../use-cases/outcomes/sync-outcomes.js';

const SCOPE = 'loop-runtime';

interface OpenTick {
  span: Span;
  phase: { name: string; span: Span } | null;
  lastAt: number;
}

/**
 * An observer that turns engine events into spans and counters for `plan`'s loop. `replayed`: the event repeats one
 * already reported (a fleet tick resumed after its worker died replays its recorded steps): its span is emitted again,
 * so the resumed tick has a whole trace, but it is not counted again.
 */
export function telemetryObserver(plan: ExecutionPlan): EngineObserver & ((event: EngineEvent, replayed?: boolean) => void) {
  const tracer = trace.getTracer(SCOPE);
  const meter = metrics.getMeter(SCOPE);
  const tokens = meter.createCounter('loop.tokens', { description: 'Tokens spent by loop backends', unit: '{token}' });
  const cost = meter.createCounter('loop.cost_usd', { description: 'Cost reported by loop backends', unit: 'USD' });
  const tickCounter = meter.createCounter('loop.ticks', { description: 'Ticks by kind' });
  const ticks = new Map<string, OpenTick>();
  const loopAttributes = { 'loop.pattern': plan.pattern.id, 'loop.level': plan.level };

  const phaseSpan = (tick: OpenTick, name: string, at: number): Span =>
    tracer.startSpan(`loop.phase ${name}`, { startTime: at, attributes: { ...loopAttributes, 'loop.phase': name } }, trace.setSpan(context.active(), tick.span));

  const handle = (event: EngineEvent, replayed: boolean) => {
    if (event.type === 'tick-start') {
      const span = tracer.startSpan(`loop.tick ${plan.pattern.id}`, { kind: SpanKind.INTERNAL, startTime: event.at, attributes: { ...loopAttributes, 'loop.tick.id': event.tickId } });
      ticks.set(event.tickId, { span, phase: null, lastAt: event.at });
      return;
    }
    const tick = ticks.get(event.tickId);
    if (!tick) return;
    switch (event.type) {
      case 'phase-start':
        tick.phase = { name: event.phase, span: phaseSpan(tick, event.phase, event.at) };
        break;
      case 'phase-end': {
        const open = tick.phase?.name === event.phase ? tick.phase.span : phaseSpan(tick, event.phase, tick.lastAt);
        open.setAttribute('loop.tokens', event.tokens);
        if (event.note) open.setAttribute('loop.note', event.note);
        open.end(event.at);
        tick.phase = null;
        tick.lastAt = event.at;
        break;
      }
      case 'backend-call': {
        const model = event.model ?? event.backend;
        const parent = tick.phase?.name === event.phase ? tick.phase.span : tick.span;
        const span = tracer.startSpan(
          `chat ${model}`,
          {
            kind: SpanKind.CLIENT,
            startTime: event.startedAt,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': event.backend,
              'gen_ai.request.model': model,
              'gen_ai.usage.input_tokens': event.usage.inputTokens,
              'gen_ai.usage.output_tokens': event.usage.outputTokens,
              'loop.phase': event.phase,
              ...(event.usage.costUsd !== null ? { 'loop.cost_usd': event.usage.costUsd } : {}),
            },
          },
          trace.setSpan(context.active(), parent),
        );
        if (!event.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: event.reason ?? 'failed' });
        span.end(event.at);
        const attributes = { ...loopAttributes, 'loop.phase': event.phase, 'gen_ai.request.model': model };
        if (replayed) break;
        tokens.add(event.usage.inputTokens + event.usage.outputTokens + event.usage.cacheReadTokens + event.usage.cacheWriteTokens, attributes);
        if (event.usage.costUsd !== null) cost.add(event.usage.costUsd, attributes);
        break;
      }
      case 'tick-end':
        tick.phase?.span.end(event.at);
        tick.span.setAttribute('loop.tick.kind', event.kind);
        if (event.kind === 'failed') tick.span.setStatus({ code: SpanStatusCode.ERROR, message: 'tick failed' });
        tick.span.end(event.at);
        if (!replayed) tickCounter.add(1, { ...loopAttributes, 'loop.tick.kind': event.kind });
        ticks.delete(event.tickId);
        break;
    }
  };
  return (event: EngineEvent, replayed?: boolean): void => {
    try {
      handle(event, replayed === true);
    } catch {
      // Telemetry is best effort; a broken exporter must never change a tick.
    }
  };
}

/** Counts the outcome changes `outcomes sync` saw (`loop.outcomes`, by loop and new state). */
export function countOutcomes(report: SyncReport): void {
  const counter = metrics.getMeter(SCOPE).createCounter('loop.outcomes', { description: 'Delivered changes whose outcome changed, by new state' });
  for (const change of report.changed) counter.add(1, { 'loop.pattern': change.pattern, 'loop.outcome': change.to });
}
