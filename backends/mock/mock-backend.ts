/**
 * A deterministic, scriptable backend for demos and tests: no model, no
 * network, no API key. Each tick follows one scenario; usage is fixed per
 * role so token numbers are reproducible. With a workspace that offers file
 * access, the implementer makes a real small edit to the file its triage
 * named, so the whole pipeline runs end to end.
 */
import type {
  AgentBackend,
  AgentOutputs,
  AgentRequest,
  AgentResult,
  AgentRole,
  CheckOutput,
  ImplementOutput,
  TriageOutput,
  Usage,
  WorkItem,
} from '../../src/core/ports/index.js';

export const MOCK_SCENARIOS = ['act-accept', 'reject', 'escalate', 'noop', 'report', 'over-budget', 'error'] as const;
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
  readonly specificationVersion = 'agent-backend-v1' as const;
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
    this.usage = { ...DEFAULT_USAGE, ...options.usage };
    this.recordCalls = options.recordCalls ?? true;
  }

  /** The scenario the current (or next) tick follows. */
  get scenario(): MockScenario {
    const index = Math.min(Math.max(this.tickIndex, 0), this.scenarios.length - 1);
    return this.scenarios[index]!;
  }

  async run<R extends AgentRole>(request: AgentRequest<R>): Promise<AgentResult<R>> {
    if (request.role === 'triage' || request.tickId !== this.currentTick) {
      if (request.tickId !== this.currentTick) this.tickIndex++;
      this.currentTick = request.tickId;
    }
    const scenario = this.scenario;
    if (this.recordCalls) {
      this.calls.push({ role: request.role, tickId: request.tickId, maxTokens: request.maxTokens, scenario, ...(request.item ? { itemKey: request.item.key } : {}) });
    }
    const usage = this.usageFor(request.role);
    if (scenario === 'error' && request.role === 'implement') {
      return { ok: false, reason: 'error', message: 'mock backend: scripted implementer error', retryable: false, usage } as AgentResult<R>;
    }
    if (scenario === 'over-budget' && request.role === 'implement') {
      // A backend that ignores its reservation: the engine must record the real spend and stop the loop.
      const over = { ...usage, inputTokens: request.maxTokens, outputTokens: 1 };
      return { ok: true, output: await this.implement(request), usage: over } as AgentResult<R>;
    }
    const output = await this.respond(request, scenario);
    return { ok: true, output, usage } as AgentResult<R>;
  }

  private async respond<R extends AgentRole>(request: AgentRequest<R>, scenario: MockScenario): Promise<AgentOutputs[R]> {
    switch (request.role) {
      case 'triage':
        return this.triage(scenario) as AgentOutputs[R];
      case 'implement':
        return (await this.implement(request)) as AgentOutputs[R];
      default:
        return this.check(scenario) as AgentOutputs[R];
    }
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

  private async implement(request: AgentRequest): Promise<ImplementOutput> {
    const path = request.item?.paths?.[0] ?? this.targetPath;
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

/** Factory form, as every backend plugin has one. */
export function createMockBackend(settings: MockBackendOptions = {}): MockBackend {
  return new MockBackend(settings);
}
