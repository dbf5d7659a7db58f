import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import type { Pattern } from '../config/schemas.js';
import { DEFAULT_GATE_POLICY } from '../gate/index.js';
import { buildPlan } from './build-plan.js';
import { agentCandidates } from './agent-tools.js';

const triage: Pattern = { ...dailyTriagePattern, token_cost: 'low' };

const bare: Pattern = { ...triage, id: 'bare', week_one_mode: undefined, token_cost: undefined, cost: undefined };

const enabledPhases = (plan: ReturnType<typeof buildPlan>) =>
  Object.entries(plan.phases)
    .filter(([, phase]) => phase.enabled)
    .map(([name]) => name);

describe('buildPlan levels', () => {
  it('L0 disables every phase, triage included', () => {
    expect(enabledPhases(buildPlan(triage, { level: 'L0' }))).toEqual([]);
  });

  it('L1 only triages and reports', () => {
    expect(enabledPhases(buildPlan(triage, { level: 'L1' }))).toEqual(['triage']);
  });

  it('L2 may change code but never merge', () => {
    const plan = buildPlan(triage, { level: 'L2', overrides: { delivery: { autoMerge: true } } });
    expect(enabledPhases(plan)).toEqual(['triage', 'workspace', 'implement', 'verify', 'commit']);
    expect(plan.delivery.autoMerge).toBe(false);
    expect(plan.delivery.draft).toBe(true);
  });

  it('L3 enables allowlisted merges, and auto-merge only when asked', () => {
    const plan = buildPlan(triage, { level: 'L3' });
    expect(plan.phases.merge).toEqual({ enabled: true });
    expect(plan.delivery.autoMerge).toBe(false);
    expect(plan.delivery.draft).toBe(false);
    expect(buildPlan(triage, { level: 'L3', overrides: { delivery: { autoMerge: true } } }).delivery.autoMerge).toBe(true);
  });

  it('takes the level from options, then overrides, then week_one_mode, then L1', () => {
    expect(buildPlan(triage, { level: 'L2', levelSource: 'cli' })).toMatchObject({ level: 'L2', levelSource: 'cli' });
    expect(buildPlan(triage, { overrides: { level: 'L3' } })).toMatchObject({ level: 'L3', levelSource: 'front-matter' });
    expect(buildPlan(triage)).toMatchObject({ level: 'L1', levelSource: 'week-one-mode' });
    expect(buildPlan({ ...triage, week_one_mode: 'L2' })).toMatchObject({ level: 'L2', levelSource: 'week-one-mode' });
    expect(buildPlan(bare)).toMatchObject({ level: 'L1', levelSource: 'default' });
  });
});

describe('buildPlan budget', () => {
  it('takes the cap from overrides, then loop-budget.md, then the catalogue, then token_cost, then 100k', () => {
    const budget = { value: 250_000, source: 'loop-budget.md (Daily Triage)' };
    expect(buildPlan(triage, { overrides: { dailyTokenCap: 42_000 }, dailyTokenCap: budget }).budget.capSource).toBe('settings: dailyTokenCap');
    expect(buildPlan(triage, { overrides: { dailyTokenCap: 42_000 } }).dailyTokenCap).toBe(42_000);
    expect(buildPlan(triage, { dailyTokenCap: budget })).toMatchObject({ dailyTokenCap: 250_000, budget: { capSource: 'loop-budget.md (Daily Triage)' } });
    expect(buildPlan(triage)).toMatchObject({ dailyTokenCap: 100_000, budget: { capSource: 'registry: cost.suggested_daily_cap' } });
    for (const [tokenCost, cap] of [['low', 100_000], ['medium', 500_000], ['high', 2_000_000], ['very-high', 1_000_000]] as const) {
      expect(buildPlan({ ...bare, token_cost: tokenCost }).dailyTokenCap).toBe(cap);
    }
    expect(buildPlan(bare)).toMatchObject({ dailyTokenCap: 100_000, budget: { capSource: 'default' } });
  });

  it('reserves the catalogue estimates, bounded by fractions of the cap, at least 1 token each', () => {
    const { budget, dailyTokenCap } = buildPlan(triage);
    expect(budget.degradeAtFraction).toBe(0.8);
    // A small cap bounds every reservation below the estimate, and together they stay under the degrade line.
    expect(budget.reserve.triage).toBeLessThan(50_000);
    expect(budget.reserve.implement).toBeLessThan(200_000);
    expect(budget.reserve.implement).toBeGreaterThan(budget.reserve.triage);
    expect(budget.reserve.triage + budget.reserve.implement + budget.reserve.check).toBeLessThanOrEqual(dailyTokenCap * budget.degradeAtFraction);
    expect(buildPlan(triage, { overrides: { dailyTokenCap: 10_000_000 } }).budget.reserve).toEqual({ triage: 50_000, implement: 200_000, check: 50_000 });
    expect(buildPlan(bare, { overrides: { dailyTokenCap: 1 } }).budget.reserve).toEqual({ triage: 1, implement: 1, check: 1 });
    expect(buildPlan(triage, { overrides: { reserve: { implement: 7 } } }).budget.reserve.implement).toBe(7);
  });
});

describe('buildPlan backend choice', () => {
  const candidates = agentCandidates(['grok', 'claude-code', 'codex', 'github-actions'], ['.codex']);
  it('an unconfigured loop is auto over the scaffold agent first, then the pattern tools in order', () => {
    expect(buildPlan(triage, { backendCandidates: candidates }).backend).toEqual({
      name: 'auto',
      source: 'tools',
      candidates: [
        { backend: 'codex', tool: '.codex', from: 'scaffold' },
        { backend: 'claude-code', tool: 'claude-code', from: 'tools' },
      ],
      model: null,
      options: {},
    });
  });
  it('a configured backend wins over every candidate and keeps none', () => {
    expect(buildPlan(triage, { backendCandidates: candidates, overrides: { backend: 'mock' } }).backend).toMatchObject({ name: 'mock', source: 'configured', candidates: [] });
  });
  it('maps loop-init tool names to backends once each, and ignores tools that are no agent', () => {
    expect(agentCandidates(['claude', 'claude-code', 'gemini', 'gh'], []).map((candidate) => candidate.backend)).toEqual(['claude-code', 'gemini-cli']);
    expect(agentCandidates(['gh', 'grok'], [])).toEqual([]);
  });
});

describe('buildPlan settings', () => {
  it('applies defaults for attempts, verify, backend, delivery, files and timeouts', () => {
    const plan = buildPlan(triage, { detectedVerifyCommands: ['npm test'] });
    expect(plan.attempts).toEqual({ maxPerItem: 3, sameErrorLimit: 3, consecutiveFailureLimit: 5, maxIterations: 10 });
    expect(plan.phases.verify).toEqual({ enabled: false, commands: [{ command: 'npm test', timeoutMs: 600_000 }], checker: true, protectedPaths: [], testEdits: 'escalate' });
    // No backend configured is never the mock: 'auto' with nothing to choose from ('default') until candidates are given.
    expect(plan.backend).toEqual({ name: 'auto', source: 'default', candidates: [], model: null, options: {} });
    expect(plan.delivery).toEqual({
      mode: 'local',
      remote: 'origin',
      draft: true,
      autoMerge: false,
      maxOpenPullRequests: 5,
      maxPullRequestsPerHour: 2,
      branchPrefix: 'loop/daily-triage/',
      baseBranch: null,
      author: { name: 'loop-runtime', email: 'loop-runtime@users.noreply.github.com' },
    });
    expect(plan.files).toEqual({ state: 'STATE.md', runLog: 'loop-run-log.md', ledger: 'loop-ledger.json' });
    expect(plan.timeoutMs).toBe(1_800_000);
    expect(plan.cadence).toEqual({ text: '1d-2h', minIntervalMs: 7_200_000, maxIntervalMs: 86_400_000 });
    expect(plan.gate).toEqual(DEFAULT_GATE_POLICY);
    expect(plan.pattern.document).toBe('daily-triage.md');
  });

  it('lets settings override each of them', () => {
    const plan = buildPlan(triage, {
      level: 'L2',
      detectedVerifyCommands: ['npm test'],
      overrides: {
        verify: ['make check'],
        timeoutSeconds: 60,
        maxAttempts: 2,
        maxIterations: 4,
        protectedPaths: ['test/**'],
        testEdits: 'allow',
        backend: 'claude-code',
        model: 'sonnet',
        backendOptions: { effort: 'low' },
        branchPrefix: 'bots/',
        baseBranch: 'develop',
        delivery: { mode: 'pull-request', draft: false, maxOpenPullRequests: 1 },
        author: { name: 'Bot', email: 'bot@example.com' },
        stateFile: 'ops/STATE.md',
        runLog: 'ops/run-log.md',
        probes: [{ name: 'red-ci', command: 'gh run list', found: 'json-entries', timeoutSeconds: 5 }],
      },
    });
    expect(plan.phases.verify.commands).toEqual([{ command: 'make check', timeoutMs: 60_000 }]);
    expect(plan.phases.verify.protectedPaths).toEqual(['test/**']);
    expect(plan.phases.verify.testEdits).toBe('allow');
    expect(plan.attempts).toMatchObject({ maxPerItem: 2, maxIterations: 4 });
    expect(plan.backend).toEqual({ name: 'claude-code', source: 'configured', candidates: [], model: 'sonnet', options: { effort: 'low' } });
    expect(plan.delivery).toMatchObject({ mode: 'pull-request', draft: false, maxOpenPullRequests: 1, branchPrefix: 'bots/', baseBranch: 'develop', author: { name: 'Bot', email: 'bot@example.com' } });
    expect(plan.files).toEqual({ state: 'ops/STATE.md', runLog: 'ops/run-log.md', ledger: 'loop-ledger.json' });
    expect(plan.earlyExit).toEqual({ probes: [{ name: 'red-ci', command: 'gh run list', found: 'json-entries', timeoutMs: 5000 }] });
    expect(plan.timeoutMs).toBe(60_000);
  });

  it('is deterministic and plain JSON, sharing nothing mutable with its inputs', () => {
    const overrides = { backendOptions: { nested: { a: 1 } }, verify: ['npm test'] };
    const first = buildPlan(triage, { overrides, level: 'L2' });
    const second = buildPlan(triage, { overrides, level: 'L2' });
    expect(JSON.stringify(first)).toBe(JSON.stringify(second));
    expect(JSON.parse(JSON.stringify(first))).toEqual(first);
    (overrides.backendOptions.nested as { a: number }).a = 2;
    expect(first.backend.options).toEqual({ nested: { a: 1 } });
    expect(Object.keys(first)).toEqual(['version', 'pattern', 'level', 'levelSource', 'cadence', 'dailyTokenCap', 'budget', 'phases', 'gate', 'attempts', 'earlyExit', 'backend', 'delivery', 'files', 'timeoutMs', 'autonomy']);
  });

  it('carries no switch the engine does not enforce: early_exit_required is a cost-model hint (loop-cost), not a plan field', () => {
    const plan = buildPlan({ ...triage, cost: { early_exit_required: true } }, { level: 'L3' });
    expect(plan.earlyExit).toEqual({ probes: [] });
    expect(Object.keys(plan.phases)).toEqual(['triage', 'workspace', 'implement', 'verify', 'commit', 'merge']);
  });
});
