/**
 * The bookkeeping of one tick: its steps, tokens, and the one way the engine
 * calls a backend — check the kill switch, reserve, call, settle.
 */
import type { BudgetBreaker } from '../budget/budget-breaker.js';
import type { ExecutionPlan } from '../plan/execution-plan.js';
import type { EnginePorts } from './engine-ports.js';
import { resultForRole, type AgentProgress, type AgentRequest, type AgentRole, type Clock, type EngineObserver, type InstructionDocument, type RequestFor, type ResultFor, type WorkspaceHandle } from '../ports/index.js';
import { INTERRUPT_SOURCE, type TickBase, type TickStep } from './tick-result.js';
import { formatCount } from '../text/format-count.js';
import type { ReportPlan } from '../verify/test-reports/test-evidence.js';

/** Fields the context fills in for every call: the caller gives only what is specific to the role. */
type Filled = 'tickId' | 'plan' | 'maxTokens' | 'instructions' | 'maxTurns';

export { INTERRUPT_SOURCE };

/** What a backend is given when the ports bring no instructions: one frozen list, not a new one per call. */
const NO_INSTRUCTIONS: readonly InstructionDocument[] = Object.freeze([]);

/** `SIGTERM` for an abort whose reason is a signal's name, else "the operator". */
export function interruptedBy(reason: unknown): string {
  return typeof reason === 'string' && /^SIG[A-Z]+$/.test(reason) ? reason : 'the operator';
}

/** A role call as a phase asks for it, e.g. `{ role: 'check', item, workspace, evidence, changes, permissions }`. */
export type RoleCall = { [R in AgentRole]: Omit<RequestFor<R>, Filled> }[AgentRole];

/**
 * What a backend call came to. Every caller handles `paused`, `unaffordable`
 * and `overrun` before it looks at a result: an overrun (the backend spent
 * more than its reservation) halts the loop whatever phase it happened in.
 */
export type BackendCall<R extends AgentRole> =
  | { kind: 'done'; result: ResultFor<R>; tokens: number }
  | { kind: 'paused'; source: string }
  | { kind: 'unaffordable'; message: string }
  | { kind: 'overrun'; phase: AgentRole; tokens: number; reserved: number; message: string };

/** The halt every caller returns for an overrun call. */
export function overrunHalt(call: { message: string }): { kind: 'halted'; reason: 'budget-overrun'; message: string } {
  return { kind: 'halted', reason: 'budget-overrun', message: call.message };
}

export class TickContext {
  readonly steps: TickStep[] = [];
  tokens = 0;
  /** The attempt's report plans (verify-phase.ts): read once from the base, shared by the base's run and the change's. */
  reportPlans: { handle: WorkspaceHandle; commands: unknown; plans: Promise<Map<string, ReportPlan>> } | null = null;

  constructor(
    readonly tickId: string,
    readonly startedAt: number,
    readonly plan: ExecutionPlan,
    private readonly ports: EnginePorts,
    private readonly clock: Clock,
    private readonly observer: EngineObserver | undefined,
  ) {}

  get budget(): BudgetBreaker {
    return this.ports.budget;
  }

  now(): number {
    return this.clock.now();
  }

  /** True once a stop signal interrupted the tick (Ctrl-C, SIGTERM, SIGHUP): nothing new starts. */
  get interrupted(): boolean {
    return this.ports.signal?.aborted === true;
  }

  /** Who stopped the tick, for notes: the signal's name when the abort carries one (`SIGTERM`), else "the operator". */
  get interruptedBy(): string {
    return interruptedBy(this.ports.signal?.reason);
  }

  /** Announces a phase that is not a backend call (a verification command); the clock is read only when observed. */
  phaseStart(phase: string, detail?: string): void {
    if (this.observer) this.observer({ type: 'phase-start', tickId: this.tickId, phase, at: this.clock.now(), ...(detail ? { detail } : {}) });
  }

  step(phase: TickStep['phase'], note: string, tokens = 0): void {
    this.steps.push({ phase, tokens, note });
    this.observer?.({ type: 'phase-end', tickId: this.tickId, phase, at: this.clock.now(), tokens, note });
  }

  /**
   * Calls the backend for one role under the kill switch and the budget.
   * The reservation is the plan's for that role and the turn limit is the
   * plan's `attempts.maxIterations`; spend is settled (durably recorded)
   * before this returns, whatever the backend answered.
   */
  async callBackend<Call extends RoleCall>(request: Call): Promise<BackendCall<Call['role']>> {
    if (this.interrupted) return { kind: 'paused', source: INTERRUPT_SOURCE };
    const pause = await this.ports.killSwitch.check();
    if (pause.paused) return { kind: 'paused', source: pause.source ?? 'kill switch' };
    const tokens = this.plan.budget.reserve[request.role];
    const grant = await this.ports.budget.reserve({ patternId: this.plan.pattern.id, tickId: this.tickId, phase: request.role, tokens, now: this.clock.now() });
    if (!grant.ok) return { kind: 'unaffordable', message: grant.message };
    // The clock is read for events only when someone observes: a recorded tick replays call for call without one.
    const startedAt = this.observer ? this.clock.now() : 0;
    this.observer?.({ type: 'phase-start', tickId: this.tickId, phase: request.role, at: startedAt });
    // Object.assign, not `{ ...request, … }`: Node 20's V8 adds each key after a leading spread through a slow path.
    // The filled keys (and the optional ones) are set on the copy just built, in the same order, not copied in from
    // a literal made and dropped per call.
    const call: RoleCall = request;
    const full = Object.assign({}, call) as AgentRequest;
    full.tickId = this.tickId;
    full.plan = this.plan;
    full.maxTokens = grant.reservation.tokens;
    full.maxTurns = this.plan.attempts.maxIterations;
    full.instructions = this.ports.instructions ?? NO_INSTRUCTIONS;
    if (this.ports.signal) full.signal = this.ports.signal;
    // No clock read here: the backend calls this, and a replayed backend does not, so a recorded tick would replay
    // a clock call short. The event is stamped with the call's start.
    if (this.observer) full.onProgress = (progress: AgentProgress) => this.observer?.({ type: 'agent-retry', tickId: this.tickId, phase: request.role, at: startedAt, attempts: progress.attempts, endpoint: progress.endpoint, failure: progress.failure });
    let result: ResultFor<Call['role']>;
    try {
      const role: Call['role'] = request.role;
      result = resultForRole(role, await this.ports.backend.run(full));
    } catch (error) {
      // A backend that throws broke the port's contract; treat it as a failure with unknown spend of zero.
      result = {
        ok: false,
        reason: 'error',
        message: `backend ${this.ports.backend.name} threw: ${error instanceof Error ? error.message : String(error)}`,
        retryable: false,
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: null },
      };
    }
    const settled = await this.ports.budget.settle(grant.reservation, result.usage, this.clock.now());
    this.tokens += settled.tokens;
    this.observer?.({
      type: 'backend-call',
      tickId: this.tickId,
      phase: request.role,
      startedAt,
      at: this.clock.now(),
      backend: this.ports.backend.name,
      model: this.plan.backend.model,
      usage: result.usage,
      ok: result.ok,
      ...(result.ok ? {} : { reason: result.reason }),
    });
    if (settled.overrun > 0) {
      // Handled here, once, for every phase: the spend is already recorded; the loop stops whatever the backend answered.
      const reserved = grant.reservation.tokens;
      const message =
        `The ${request.role} phase spent ${formatCount(settled.tokens)} tokens against a reservation of ${formatCount(reserved)} ` +
        `(${formatCount(settled.overrun)} over) on backend ${this.ports.backend.name}; the loop halts until a human checks that the backend honours maxTokens.`;
      this.step(request.role, message, settled.tokens);
      return { kind: 'overrun', phase: request.role, tokens: settled.tokens, reserved, message };
    }
    if (this.interrupted) {
      // Stopped mid-call: what it spent is settled above; whatever it answered is not acted on.
      this.step(request.role, `interrupted: the ${request.role} call was stopped by ${this.interruptedBy}; what it spent is settled`, settled.tokens);
      return { kind: 'paused', source: INTERRUPT_SOURCE };
    }
    return { kind: 'done', result, tokens: settled.tokens };
  }

  async base(): Promise<TickBase> {
    const status = await this.ports.budget.status(this.plan.pattern.id, this.clock.now());
    return {
      tickId: this.tickId,
      patternId: this.plan.pattern.id,
      level: this.plan.level,
      startedAt: this.startedAt,
      finishedAt: this.clock.now(),
      tokens: this.tokens,
      budget: { spentToday: status.spent, dailyTokenCap: status.cap },
      steps: this.steps,
    };
  }
}
