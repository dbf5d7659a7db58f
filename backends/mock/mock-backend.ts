/**
 * A deterministic, scriptable backend for demos and tests: no model, no
 * network, no API key. Each tick follows one scenario; usage is fixed per
 * role so token numbers are reproducible. With a workspace that offers file
 * access, the implementer makes a real small edit to the file its triage
 * named, so the whole pipeline runs end to end. Every result is tagged with
 * the request's role. The `runaway` scenario plays a model that keeps asking
 * for tools: it counts turns against `maxTurns` and spends its role's usage
 * per turn against `maxTokens`, so the limits can be tested without a model.
 */
import type {
  AgentBackend,
  AgentRequest,
  AgentResult,
  AgentRole,
  BackendFailure,
  CheckOutput,
  ImplementOutput,
  ImplementRequest,
  TriageOutput,
  Usage,
  WorkItem,
} from '../../src/core/ports/index.js';

export const MOCK_SCENARIOS = ['act-accept', 'reject', 'escalate', 'noop', 'report', 'over-budget', 'error', 'runaway'] as const;
export type MockScenario = (typeof MOCK_SCENARIOS)[number];

export interface MockBackendOptions {
  /** Scenarios used by successive ticks (one per triage call); the last one repeats. Default: ['act-accept']. */
  scenarios?: readonly MockScenario[];
  /** The file triage names and the implementer edits. Default: src/example.ts. */
  targetPath?: string;
  /** Item key triage reports. Default: "mock#1". */
  itemKey?: string;
  /** Fixed usage per role; defaults are small and realistic. */
  usage?: Partial<Record<AgentRole, Pick<Usage, 'inputTokens' | 'outputTokens'>>>;
  /** Record every request in `calls` (default true; the benchmark turns it off). */
  recordCalls?: boolean;
}

export interface MockCall {
  role: AgentRole;
  tickId: string;
  maxTokens: number;
  scenario: MockScenario;
  itemKey?: string;
}

const DEFAULT_USAGE: Record<AgentRole, Pick<Usage, 'inputTokens' | 'outputTokens'>> = {
  triage: { inputTokens: 1_800, outputTokens: 420 },
  implement: { inputTokens: 5_200, outputTokens: 1_300 },
  check: { inputTokens: 2_600, outputTokens: 310 },
};

export class MockBackend implements AgentBackend {
  readonly specificationVersion = 'agent-backend-v2' as const;
  readonly name = 'mock';
  readonly calls: MockCall[] = [];
  private readonly scenarios: readonly MockScenario[];
  private readonly targetPath: string;
  private readonly itemKey: string;
  private readonly usage: Record<AgentRole, Pick<Usage, 'inputTokens' | 'outputTokens'>>;
  private readonly recordCalls: boolean;
  private tickIndex = -1;
  private currentTick: string | null = null;

  constructor(options: MockBackendOptions = {}) {
    for (const scenario of options.scenarios ?? []) {
      if (!MOCK_SCENARIOS.includes(scenario)) {
        throw new RangeError(`Unknown mock scenario "${scenario}". Use one of: ${MOCK_SCENARIOS.join(', ')}.`);
      }
    }
    this.scenarios = options.scenarios?.length ? options.scenarios : ['act-accept'];
    this.targetPath = options.targetPath ?? 'src/example.ts';
    this.itemKey = options.itemKey ?? 'mock#1';
    this.usage = Object.assign({}, DEFAULT_USAGE, options.usage);
    this.recordCalls = options.recordCalls ?? true;
  }

  /** The scenario the current (or next) tick follows. */
  get scenario(): MockScenario {
    const index = Math.min(Math.max(this.tickIndex, 0), this.scenarios.length - 1);
    return this.scenarios[index]!;
  }

  async run(request: AgentRequest): Promise<AgentResult> {
    if (request.role === 'triage' || request.tickId !== this.currentTick) {
      if (request.tickId !== this.currentTick) this.tickIndex++;
      this.currentTick = request.tickId;
    }
    const scenario = this.scenario;
    if (this.recordCalls) {
      this.calls.push({ role: request.role, tickId: request.tickId, maxTokens: request.maxTokens, scenario, ...(request.role !== 'triage' ? { itemKey: request.item.key } : {}) });
    }
    const usage = this.usageFor(request.role);
    if (request.signal?.aborted) return failure('aborted', 'mock backend: the run was aborted before it started.', true, Object.assign({}, usage, { inputTokens: 0, outputTokens: 0 }));
    if (scenario === 'runaway') return this.runaway(request, usage);
    if (scenario === 'error' && request.role === 'implement') {
      return failure('error', 'mock backend: scripted implementer error', false, usage);
    }
    const scripted = usage.inputTokens + usage.outputTokens;
    if (scenario !== 'over-budget' && scripted > request.maxTokens) {
      // Like a real agent stopped at its reservation: the spend is the reservation, the answer is a budget failure.
      const message = `mock backend: the ${request.role} call needs ${scripted} tokens but its reservation is ${request.maxTokens}; stopped at the reservation.`;
      return failure('budget', message, false, Object.assign({}, usage, { inputTokens: request.maxTokens, outputTokens: 0 }));
    }
    switch (request.role) {
      case 'triage':
        return { ok: true, role: 'triage', output: this.triage(scenario), usage };
      case 'implement': {
        const output = await this.implement(request);
        // over-budget: a backend that ignores its reservation; the engine must record the real spend and stop the loop.
        const spent = scenario === 'over-budget' ? Object.assign({}, usage, { inputTokens: request.maxTokens, outputTokens: 1 }) : usage;
        return { ok: true, role: 'implement', output, usage: spent };
      }
      case 'check':
        return { ok: true, role: 'check', output: this.check(scenario), usage };
    }
  }

  /** A model that asks for one more tool every turn: stops at maxTurns, or before a turn that would cross maxTokens. */
  private runaway(request: AgentRequest, perTurn: Usage): BackendFailure {
    const cost = perTurn.inputTokens + perTurn.outputTokens;
    let turns = 0;
    while (turns < request.maxTurns) {
      if ((turns + 1) * cost > request.maxTokens) {
        return failure('budget', `mock backend: turn ${turns + 1} would cross the ${request.maxTokens}-token reservation.`, false, times(perTurn, turns));
      }
      turns++;
    }
    return failure('max-turns', `mock backend: used all ${request.maxTurns} turns without finishing.`, true, times(perTurn, turns));
  }

  private triage(scenario: MockScenario): TriageOutput {
    const item: WorkItem = { key: this.itemKey, title: 'Tidy the example module', paths: [this.targetPath] };
    if (scenario === 'noop') return { decision: 'noop', summary: 'Nothing actionable.', findings: [], items: [] };
    if (scenario === 'report') {
      return {
        decision: 'report',
        summary: 'One item worth a human look; nothing to change automatically.',
        findings: [{ severity: 'watch', summary: 'Example module could use a tidy-up.', itemKey: item.key }],
        items: [item],
      };
    }
    return {
      decision: 'act',
      summary: `One small safe fix in ${this.targetPath}.`,
      findings: [{ severity: 'high', summary: `Small fix available in ${this.targetPath}.`, itemKey: item.key }],
      items: [item],
    };
  }

  private async implement(request: ImplementRequest): Promise<ImplementOutput> {
    const path = request.item.paths?.[0] ?? this.targetPath;
    if (request.files) {
      const before = (await request.files.read(path)) ?? '';
      const separator = before === '' || before.endsWith('\n') ? '' : '\n';
      await request.files.write(path, `${before}${separator}// tidied by loop-runtime mock backend (${request.tickId})\n`);
    }
    return { summary: `Appended a tidy-up comment to ${path}.`, completed: true };
  }

  private check(scenario: MockScenario): CheckOutput {
    if (scenario === 'reject') return { verdict: 'REJECT', reasons: ['mock checker: the change does not address the item.'] };
    if (scenario === 'escalate') return { verdict: 'ESCALATE_HUMAN', reasons: ['mock checker: needs a design decision.'] };
    return { verdict: 'APPROVE', reasons: ['mock checker: small, scoped change.'] };
  }

  private usageFor(role: AgentRole): Usage {
    const base = this.usage[role];
    return { inputTokens: base.inputTokens, outputTokens: base.outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
  }
}

function failure(reason: BackendFailure['reason'], message: string, retryable: boolean, usage: Usage): BackendFailure {
  return { ok: false, reason, message, retryable, usage };
}

function times(usage: Usage, turns: number): Usage {
  return Object.assign({}, usage, { inputTokens: usage.inputTokens * turns, outputTokens: usage.outputTokens * turns });
}

/** Factory form, as every backend plugin has one. */
export function createMockBackend(settings: MockBackendOptions = {}): MockBackend {
  return new MockBackend(settings);
}
