/**
 * The tick engine. Pure: no `node:*`, no process, no git — every effect goes
 * through the injected ports, and time and ids are injected too.
 *
 * A tick: kill switch → budget → max runs/day → attempt circuit → discovery probes →
 * triage → (L2+, not degraded) act → state file + run log.
 */
import type { ExecutionPlan } from '../plan/execution-plan.js';
import { utcDay } from '../budget/utc-day.js';
import { CapabilityUnsupportedError } from '../errors.js';
import { act } from './act-phase.js';
import { circuitState, failedAttemptsOn } from './circuit-breaker.js';
import { checkPorts } from './check-ports.js';
import { hasOpenProposal } from './open-proposal.js';
import { fenceTickPorts, isLeaseLost, type LeaseLostError } from './lease-fence.js';
import type { EnginePorts } from './engine-ports.js';
import type { AttemptRecord, WorkItem } from '../ports/index.js';
import { interruptedBy, overrunHalt, TickContext } from './tick-context.js';
import { toTickRecord } from './tick-record.js';
import { isInterrupted, isStickyHalt, type TickBase, type TickResult } from './tick-result.js';
import { isoSecond } from '../state/state-blocks.js';
import { formatCount } from '../text/format-count.js';

/** What a tick without a delivery port (or not acting) knows of open proposals: nothing, one set for every tick. */
const NO_PROPOSALS: ReadonlySet<string> = new Set<string>();

type Outcome = TickResult extends infer T ? (T extends TickBase ? Omit<T, keyof TickBase> : never) : never;

/**
 * Runs ticks of one loop.
 *
 * @example
 * ```ts
 * const plan = buildPlan(pattern, { level: 'L2', overrides: { verify: ['npm test'] } });
 * const engine = new LoopEngine(plan, createMemoryPorts({ plan, commands: {} })); // from loop-runtime/testing
 * const result = await engine.tick(); // { kind: 'proposed', … }
 * ```
 */
export class LoopEngine {
  readonly plan: ExecutionPlan;
  private readonly ports: EnginePorts;

  /** @throws TypeError when a required port is missing or a port implements another specification version. */
  constructor(plan: ExecutionPlan, ports: EnginePorts) {
    if (plan.version !== 1) throw new TypeError(`Unsupported ExecutionPlan version ${String(plan.version)}; this engine runs version 1.`);
    checkPorts(ports);
    this.plan = plan;
    // One fence for every shared write of the tick (lease-fence.ts), not a check per phase.
    this.ports = ports.lease ? fenceTickPorts(ports, ports.lease) : { ...ports };
  }

  /** Runs one tick and records it (state file, run log, spend) before returning. */
  async tick(): Promise<TickResult> {
    const tickId = this.ports.ids.next('tick');
    const startedAt = this.ports.clock.now();
    const context = new TickContext(tickId, startedAt, this.plan, this.ports, this.ports.clock, this.ports.observer);
    this.ports.observer?.({ type: 'tick-start', tickId, at: startedAt });
    let outcome: Outcome;
    try {
      outcome = await this.run(context);
    } catch (error) {
      if (isLeaseLost(error)) return this.leaseLost(context, error);
      await this.recordThrow(context, error);
      throw error;
    }
    const result = Object.assign(await context.base(), outcome) as TickResult;
    try {
      await this.record(result);
    } catch (error) {
      // Lost after the tick decided, before its record: the record is refused like every other write.
      if (isLeaseLost(error)) return this.leaseLost(context, error);
      throw error;
    }
    this.ports.observer?.({ type: 'tick-end', tickId, at: result.finishedAt, kind: result.kind });
    return result;
  }

  /** What a finished tick writes: a sticky halt, then its record (or a note for a halt or pause). */
  private async record(result: TickResult): Promise<void> {
    if (result.kind === 'halted' && isStickyHalt(result.reason) && this.ports.killSwitch.halt) {
      // Persisted before anything else is written: a kill after this point still leaves the loop halted.
      const { patternId, tickId: haltedTick, startedAt: haltedAt, finishedAt: at, tokens } = result;
      await this.ports.killSwitch.halt({ patternId, reason: result.reason, message: result.message, tickId: haltedTick, startedAt: haltedAt, at, tokens });
    }
    if (result.kind === 'paused' && isInterrupted(result)) {
      // A stop signal is not a halt: the tick ran and spent, so it has its run-log line (`interrupted`, with what was
      // settled, so `metrics` agrees with the budget) and the note says what it left.
      await this.ports.state.recordTick(toTickRecord(result));
      await this.ports.state.note(this.plan.pattern.id, result.finishedAt, haltNote(result, interruptedBy(this.ports.signal?.reason)));
    } else if (result.kind === 'paused' || result.kind === 'halted') {
      if (result.kind === 'halted' && result.reason === 'level-l0') return;
      // Every halted tick leaves its run-log line (`halted-tick`, its reason) so `history` and `status` show it, once
      // per tick — unless its halt line is already that line (a sticky halt, persisted above). Not `halted`: that
      // kind is the persisted halt a human must clear.
      if (result.kind === 'halted' && !(isStickyHalt(result.reason) && this.ports.killSwitch.halt)) {
        await this.ports.state.recordTick(Object.assign(toTickRecord(result), { kind: 'halted-tick' as const, reason: result.reason }));
      }
      await this.ports.state.note(this.plan.pattern.id, result.finishedAt, haltNote(result));
    } else {
      await this.ports.state.recordTick(toTickRecord(result));
    }
  }

  /** Another process holds the loop now: the tick's outcome is returned, and nothing more is written here. */
  private async leaseLost(context: TickContext, error: LeaseLostError): Promise<TickResult> {
    context.step('kill-switch', error.message);
    const lost = Object.assign(await context.base(), { kind: 'halted', reason: 'lease-lost', message: error.message }) as TickResult;
    this.ports.observer?.({ type: 'tick-end', tickId: context.tickId, at: lost.finishedAt, kind: lost.kind });
    return lost;
  }

  /** Runs up to `count` ticks, stopping early at a halt or pause. */
  async ticks(count: number, afterEach?: (result: TickResult) => Promise<void>): Promise<TickResult[]> {
    const results: TickResult[] = [];
    for (let index = 0; index < count; index++) {
      const result = await this.tick();
      results.push(result);
      // What the next tick must know (a change it delivered is an open proposal) is written before it triages.
      await afterEach?.(result);
      if (result.kind === 'halted' || result.kind === 'paused') break;
    }
    return results;
  }

  private async run(context: TickContext): Promise<Outcome> {
    const { plan } = this;
    if (!plan.phases.triage.enabled) {
      return { kind: 'halted', reason: 'level-l0', message: `${plan.pattern.name} is at L0 (draft): nothing runs.` };
    }
    const pause = await this.ports.killSwitch.check();
    if (pause.halt) {
      const { halt } = pause;
      const message = `${plan.pattern.name} is halted since ${isoSecond(halt.at)} (${halt.reason}: ${halt.message}); no backend was called. A human must check, then run \`loop-runtime resume ${plan.pattern.id}\`.`;
      context.step('kill-switch', message);
      return { kind: 'halted', reason: 'awaiting-resume', message, halt };
    }
    if (pause.paused) {
      context.step('kill-switch', `paused by ${pause.source ?? 'kill switch'}`);
      return { kind: 'paused', source: pause.source ?? 'kill switch' };
    }
    await this.ports.budget.reconcileAbandoned(plan.pattern.id, context.now());
    const budget = await this.ports.budget.status(plan.pattern.id, context.now(), { refresh: true });
    if (budget.state === 'exhausted') {
      const message = `Daily token cap reached: ${formatCount(budget.spent)} / ${formatCount(budget.cap)} tokens spent on ${budget.day} (UTC). Resumes after 00:00 UTC.`;
      context.step('budget', message);
      return { kind: 'halted', reason: 'budget-exhausted', message };
    }
    const runs = plan.budget.maxRunsPerDay;
    if (runs) {
      if (!this.ports.state.runsOn) throw new CapabilityUnsupportedError('StateWriter', 'runsOn (needed to enforce Max runs/day)');
      const day = utcDay(context.now());
      const ran = await this.ports.state.runsOn(plan.pattern.id, day);
      if (ran >= runs.value) {
        const message = `Max runs/day reached: ${plan.pattern.id} ran ${ran} time(s) on ${day} (UTC), the limit is ${runs.value} (${runs.source}). Resumes after 00:00 UTC.`;
        context.step('budget', message);
        return { kind: 'halted', reason: 'max-runs-per-day', message };
      }
    }
    const history = await this.ports.attempts.history();
    const circuit = circuitState(history, plan.attempts, plan.pattern.id);
    if (circuit.open) {
      const message = `Circuit breaker open: ${circuit.message} A human must look before the loop acts again, then run \`loop-runtime resume ${plan.pattern.id}\` (the attempts stay in ${plan.files.ledger}).`;
      context.step('escalate', message);
      return { kind: 'halted', reason: 'circuit-open', message };
    }

    let probedItems: WorkItem[] = [];
    if (plan.earlyExit.probes.length > 0 && this.ports.discovery) {
      const discovered = await this.ports.discovery.discover(plan);
      context.step('discovery', discovered.notes.join('; ') || (discovered.found ? 'work found' : 'nothing found'));
      if (!discovered.found) return { kind: 'noop', summary: `Probes found nothing: ${discovered.notes.join('; ') || 'no work'}.` };
      probedItems = discovered.items;
    }

    const triage = await context.callBackend({
      role: 'triage',
      permissions: { write: false, execute: false },
      ...(probedItems.length ? { discovered: probedItems } : {}),
    });
    if (triage.kind === 'paused') return { kind: 'paused', source: triage.source };
    if (triage.kind === 'overrun') return overrunHalt(triage);
    if (triage.kind === 'unaffordable') {
      context.step('budget', triage.message);
      return { kind: 'halted', reason: 'budget-exhausted', message: triage.message };
    }
    const triageResult = triage.result;
    if (!triageResult.ok) {
      context.step('triage', `triage failed: ${triageResult.message}`, triage.tokens);
      await this.recordFailure(context, '(triage)', triageResult.message);
      if (!triageResult.retryable && ['auth', 'quota-exhausted', 'not-installed'].includes(triageResult.reason)) {
        return { kind: 'halted', reason: 'backend-stopped', message: triageResult.message };
      }
      return { kind: 'failed', phase: 'triage', message: triageResult.message, retryable: triageResult.retryable };
    }
    const output = triageResult.output;
    context.step('triage', `triage decision: ${output.decision} — ${output.summary}`, triage.tokens);
    if (output.decision === 'noop') return { kind: 'noop', summary: output.summary };

    const afterTriage = await this.ports.budget.status(plan.pattern.id, context.now());
    const degradedReason =
      output.decision !== 'act'
        ? undefined
        : !plan.phases.implement.enabled
          ? `level ${plan.level} only reports`
          : !plan.phases.workspace.enabled
            ? `the plan has the workspace phase off at ${plan.level}`
            : afterTriage.state !== 'ok'
            ? `budget at ${Math.floor(afterTriage.fraction * 100)}% of the daily cap (report-only from ${Math.round(this.ports.budget.degradeAtFraction * 100)}%)`
            : undefined;
    // An item with an open proposal (a pending PR or branch, a failed delivery, a change waiting on a human) is not proposed again.
    const open: ReadonlySet<string> = output.decision === 'act' && !degradedReason && this.ports.delivery?.openProposals ? new Set(await this.ports.delivery.openProposals(plan.pattern.id)) : NO_PROPOSALS;
    const isOpen = (candidate: WorkItem) => hasOpenProposal(candidate, open, probedItems);
    const picked = output.decision === 'act' ? this.pickItem(output.items, isOpen, history) : undefined;
    if (output.decision === 'report' || degradedReason || !picked) {
      const waiting = output.items.filter(isOpen).map((candidate) => candidate.key);
      const noItem = waiting.length > 0 ? `every item has used its attempts or has an open proposal (${waiting.join(', ')})` : 'every item has used its attempts';
      if (output.decision === 'act' && !degradedReason && waiting.length > 0) context.step('triage', `not proposed again while an earlier proposal is open: ${waiting.join(', ')}`);
      return {
        kind: 'report',
        summary: output.summary,
        findings: output.findings,
        items: output.items,
        degraded: output.decision === 'act',
        ...(degradedReason ? { degradedReason } : output.decision === 'act' ? { degradedReason: noItem } : {}),
      };
    }
    if (open.size > 0) {
      const skipped = output.items.filter(isOpen).map((candidate) => candidate.key);
      if (skipped.length > 0) context.step('triage', `not proposed again while an earlier proposal is open: ${skipped.join(', ')}`);
    }
    // Awaited here: resolving this async function with act's promise would take two more hops.
    return await act(context, this.ports, { item: picked.item, history, priorFailures: picked.failures });
  }

  /** The first item without an open proposal that has attempts left, with its failed attempts (the act phase counts from them). */
  private pickItem(items: readonly WorkItem[], isOpen: (item: WorkItem) => boolean, history: readonly AttemptRecord[]): { item: WorkItem; failures: number } | undefined {
    for (const item of items) {
      if (isOpen(item)) continue;
      const failures = failedAttemptsOn(history, { patternId: this.plan.pattern.id, itemKey: item.key });
      if (failures < this.plan.attempts.maxPerItem) return { item, failures };
    }
    return undefined;
  }

  /**
   * A throw anywhere in a tick (a port, the gate, a bug) is a failure like any
   * other: it is recorded as a failed attempt — so the circuit breaker counts
   * it — and as a failed tick, each best effort (the port that threw may be the
   * one that records), and the error is rethrown for its code and message.
   */
  private async recordThrow(context: TickContext, error: unknown): Promise<void> {
    const message = `tick threw: ${error instanceof Error ? error.message : String(error)}`;
    const last = context.steps[context.steps.length - 1];
    await this.recordFailure(context, '(tick)', message).catch(() => undefined);
    try {
      const base = await context.base().catch(() => null);
      if (!base) return;
      const result: TickResult = Object.assign(base, { kind: 'failed' as const, phase: last?.phase ?? 'triage', message, retryable: false });
      await this.ports.state.recordTick(toTickRecord(result));
    } catch {
      // The state writer may be what threw; the attempt above is what the circuit breaker needs.
    }
  }

  private async recordFailure(context: TickContext, itemKey: string, error: string): Promise<void> {
    await this.ports.attempts.append({ patternId: this.plan.pattern.id, itemKey, tickId: context.tickId, at: context.now(), outcome: 'failure', error, tokensUsed: context.tokens });
  }
}

function haltNote(result: Extract<TickResult, { kind: 'paused' | 'halted' }>, by = 'the operator'): string {
  if (result.kind === 'paused' && isInterrupted(result)) {
    const who = by === 'SIGINT' ? 'Ctrl-C (SIGINT)' : by;
    return `Tick ${result.tickId} interrupted by ${who}; what it spent is settled${result.kept ? `; the unverified change waits in ${result.kept.branch} for approve or reject` : ''}.`;
  }
  return result.kind === 'paused' ? `Loop paused by ${result.source}; no backend was called.` : `Loop halted: ${result.message}`;
}
