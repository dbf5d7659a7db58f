import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { validateAction, validateWorkflow } from '@action-validator/core';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { actionOutputs, actionOutputsWithCost, githubOutputLines } from './action-outputs.js';
import { payloadOf } from '../cli/envelope-schema.js';
import { ACTION_REF_PLACEHOLDER, actionWorkflow, CHECKOUT_PINNED, PINNED_ACTION_REF } from './action-workflow.js';
import type { WorkflowLoop } from './github-workflow.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SHA = /@[0-9a-f]{40}$/;
const MINUTE = 60_000;
const LOOPS: WorkflowLoop[] = [
  { id: 'ci-sweeper', cadence: { text: '5m-15m', minIntervalMs: 5 * MINUTE, maxIntervalMs: 15 * MINUTE }, backend: 'claude-code', delivery: 'pull-request', timeoutMs: 30 * MINUTE, probeCommands: [], sandbox: true },
  { id: 'daily-triage', cadence: { text: '1d-2h', minIntervalMs: 120 * MINUTE, maxIntervalMs: 1440 * MINUTE }, backend: 'openai', delivery: 'local', timeoutMs: 20 * MINUTE, probeCommands: [], sandbox: false },
];

/** Every `uses:` value anywhere in a parsed YAML document. */
function usesOf(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(usesOf);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => (key === 'uses' && typeof value === 'string' ? [value] : usesOf(value)));
}

const unpinned = (yaml: string) => usesOf(parse(yaml)).filter((uses) => !SHA.test(uses));

describe('action.yml', async () => {
  const text = await readFile(join(ROOT, 'action.yml'), 'utf8');
  const action = parse(text) as { inputs: Record<string, unknown>; outputs: Record<string, { value: string }>; runs: { using: string; steps: Array<{ uses?: string; run?: string; shell?: string }> } };

  it('passes the Action metadata validator (@action-validator/core)', () => {
    expect(validateAction(text).errors).toEqual([]);
  });

  it('pins every uses: to a 40-hex commit; the check catches a tag (the twin)', () => {
    expect(usesOf(action).length).toBeGreaterThan(0);
    expect(unpinned(text)).toEqual([]);
    expect(unpinned(text.replace(/@[0-9a-f]{40}/, '@v4'))).toEqual(['actions/setup-node@v4']);
  });

  it('is a composite with the documented inputs and outputs, every run: step in bash', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(['loop', 'level', 'backend', 'mode', 'state-branch', 'allow-bots', 'node-version']);
    expect(Object.keys(action.outputs)).toEqual(['outcome', 'tokens', 'cost-usd', 'pull-request-url', 'escalated']);
    for (const [name, output] of Object.entries(action.outputs)) expect(output.value).toBe(`\${{ steps.summary.outputs.${name} }}`);
    for (const step of action.runs.steps.filter((candidate) => candidate.run)) expect(step.shell).toBe('bash');
  });

  it('decides "due?" right after its own install; the gate, state pull, event, tick and push run unless due=false', () => {
    const steps = action.runs.steps as Array<{ name?: string; id?: string; if?: string; run?: string }>;
    const due = steps.findIndex((step) => step.id === 'due');
    expect(steps[due - 1]!.name).toBe("Install loop-runtime (this Action's own commit)");
    expect(steps[due]!.run).toContain('$LOOP_RUNTIME "${args[@]}" || echo "::warning');
    const gated = steps.filter((step) => step.if?.includes("steps.due.outputs.due != 'false'")).map((step) => step.id ?? step.name);
    expect(gated).toEqual(['gate', 'Pull loop state', 'event', 'tick', 'Push loop state']);
    // The summary always runs: a skipped run's outputs say not-due instead of reading a JSON nobody wrote.
    expect(steps.at(-1)).toMatchObject({ id: 'summary', if: 'always()' });
    expect(steps.at(-1)!.run).toContain('outcome=not-due');
  });
});

describe('ci init --action workflow', () => {
  const ref = 'acme/loop-runtime@0123456789abcdef0123456789abcdef01234567';

  it('uses the Action at the given commit, checkout pinned, and passes the workflow validator', () => {
    const text = actionWorkflow({ loops: LOOPS, actionRef: ref });
    expect(validateWorkflow(text).errors).toEqual([]);
    expect(usesOf(parse(text))).toEqual([CHECKOUT_PINNED, ref, CHECKOUT_PINNED, ref]);
    expect(unpinned(text)).toEqual([]);
    const jobs = (parse(text) as { jobs: Record<string, { permissions: object; env?: object; steps: Array<{ with?: Record<string, string> }> }> }).jobs;
    expect(jobs['ci-sweeper']!.permissions).toEqual({ actions: 'read', contents: 'write', 'pull-requests': 'write' });
    expect(jobs['ci-sweeper']!.steps[1]!.with).toMatchObject({ loop: 'ci-sweeper', 'state-branch': 'loop-runtime-state' });
    expect(jobs['daily-triage']!.env).toEqual({ OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}' });
  });

  it("wires each catalogue loop to its events, each job only to its own: failed runs, issues, reviews and comments on loop pull requests", () => {
    const loops: WorkflowLoop[] = [
      ...LOOPS,
      { ...LOOPS[1]!, id: 'issue-triage', backend: 'mock' },
      { ...LOOPS[1]!, id: 'pr-babysitter', backend: 'mock' },
    ];
    const text = actionWorkflow({ loops, actionRef: ref, ciWorkflows: ['CI', 'Lint'] });
    expect(validateWorkflow(text).errors).toEqual([]);
    const workflow = parse(text) as { on: Record<string, unknown>; jobs: Record<string, { if: string; concurrency: object; permissions: object }> };
    expect(workflow.on).toMatchObject({
      workflow_dispatch: {},
      workflow_run: { workflows: ['CI', 'Lint'], types: ['completed'] },
      issues: { types: ['opened', 'labeled'] },
      pull_request_review: { types: ['submitted'] },
      issue_comment: { types: ['created'] },
    });
    const { jobs } = workflow;
    expect(jobs['ci-sweeper']!.if).toContain("(github.event_name == 'workflow_run' && github.event.workflow_run.conclusion == 'failure')");
    expect(jobs['issue-triage']!.if).toContain("github.event_name == 'issues'");
    expect(jobs['pr-babysitter']!.if).toContain("startsWith(github.event.pull_request.head.ref, 'loop/')");
    expect(jobs['pr-babysitter']!.if).toContain("github.event.issue.pull_request != null");
    // Another loop's event does not start a job: daily-triage has cron and dispatch only.
    expect(jobs['daily-triage']!.if).not.toContain('workflow_run');
    expect(jobs['daily-triage']!.if).not.toContain('issues');
    expect(jobs['ci-sweeper']!.if).not.toContain("'issues'");
    // A burst: one run per loop at a time, the rest queued, never cancelled mid-tick.
    for (const job of Object.values(jobs)) expect(job.concurrency).toMatchObject({ 'cancel-in-progress': false });
    expect(jobs['ci-sweeper']!.concurrency).toEqual({ group: 'loop-runtime-ci-sweeper', 'cancel-in-progress': false });
    expect(jobs['issue-triage']!.permissions).toMatchObject({ issues: 'read' });
    expect(jobs['pr-babysitter']!.permissions).toMatchObject({ 'pull-requests': 'read' });
    // Without an event loop, no event trigger is written.
    expect(Object.keys((parse(actionWorkflow({ loops: [LOOPS[1]!], actionRef: ref })) as { on: object }).on)).toEqual(['schedule', 'workflow_dispatch']);
  });

  it('without a ref writes a placeholder that says what to replace, and the pin check flags it', () => {
    const text = actionWorkflow({ loops: LOOPS, actionRef: null, stateBranch: null });
    expect(text).toContain(ACTION_REF_PLACEHOLDER);
    expect(text).toMatch(/REPLACE .* with <owner>\/loop-runtime@<40-hex commit sha>/);
    expect(unpinned(text)).toEqual([ACTION_REF_PLACEHOLDER, ACTION_REF_PLACEHOLDER]);
  });

  it('accepts only owner/repo@<40-hex> refs', () => {
    expect(PINNED_ACTION_REF.test(ref)).toBe(true);
    expect(PINNED_ACTION_REF.test('acme/loop-runtime@v1')).toBe(false);
    expect(PINNED_ACTION_REF.test('acme/loop-runtime@main')).toBe(false);
    expect(PINNED_ACTION_REF.test('acme/loop-runtime@0123456')).toBe(false);
  });
});

describe('actionOutputs', () => {
  it('reads outcome, tokens, cost, pull request and escalation from run --json', () => {
    const proposed = { pattern: { id: 'ci-sweeper' }, ticks: [{ kind: 'proposed', tokens: 1200, costUsd: 0.0123, delivery: { kind: 'pull-request', url: 'https://example.invalid/pr/7' } }] };
    expect(actionOutputs(proposed)).toEqual({ outcome: 'proposed', tokens: '1200', 'cost-usd': '0.0123', 'pull-request-url': 'https://example.invalid/pr/7', escalated: 'false' });
    const escalated = { decisions: [{ id: 'a', action: 'ticked', tick: { kind: 'escalated', tokens: 5 } }, { id: 'b', action: 'not-due' }] };
    expect(actionOutputs(escalated)).toEqual({ outcome: 'escalated not-due', tokens: '5', 'cost-usd': '', 'pull-request-url': '', escalated: 'true' });
  });

  it("fills cost-usd from the spend journal's priced spend; a price nobody knows leaves it empty, named, never guessed", () => {
    const run = { pattern: { id: 'ci-sweeper' }, ticks: [{ tickId: 't-1', kind: 'report', tokens: 960 }, { tickId: 't-2', kind: 'noop', tokens: 0 }] };
    const priced = new Map([['t-1', { tokens: 960, costUsd: 0.000171 }]]);
    expect(actionOutputsWithCost(run, priced)).toEqual({ outputs: expect.objectContaining({ 'cost-usd': '0.0002', tokens: '960' }), priceUnknown: [] });
    const unpriced = new Map([['t-1', { tokens: 960, costUsd: null }]]);
    expect(actionOutputsWithCost(run, unpriced)).toEqual({ outputs: expect.objectContaining({ 'cost-usd': '' }), priceUnknown: ['t-1'] });
    expect(actionOutputsWithCost(run, new Map())).toMatchObject({ outputs: { 'cost-usd': '' }, priceUnknown: ['t-1'] });
    // A run whose ticks spent nothing cost nothing, known; a run without ticks has no cost to tell.
    expect(actionOutputs({ ticks: [{ tickId: 't-3', kind: 'halted', tokens: 0 }] }, new Map())['cost-usd']).toBe('0.0000');
    expect(actionOutputs({ decisions: [{ id: 'a', action: 'not-due' }] }, priced)['cost-usd']).toBe('');
  });

  it('reads run --json bare or in the envelope { version, ok, command, data | error }', () => {
    const run = { ticks: [{ tickId: 't', kind: 'noop', tokens: 0 }] };
    expect(actionOutputs(payloadOf({ version: 1, ok: true, command: 'run', data: run }))).toEqual(actionOutputs(run));
    expect(actionOutputs(payloadOf(run)).outcome).toBe('noop');
    expect(actionOutputs(payloadOf({ version: 1, ok: false, command: 'run', error: { code: 'CONFIG_INVALID', message: 'x' } })).outcome).toBe('error');
    // A halted run exits non-zero but did its work: its ticks are still what the outputs are made of.
    expect(actionOutputs(payloadOf({ version: 1, ok: false, command: 'run', error: { code: 'HALTED', message: 'x' }, data: run }))).toEqual(actionOutputs(run));
  });

  it('says no-output without JSON and error for an error', () => {
    expect(actionOutputs(null).outcome).toBe('no-output');
    expect(actionOutputs({ error: { code: 'CONFIG_INVALID', message: 'x' } }).outcome).toBe('error');
  });

  it('writes name=value lines, and the heredoc form for a value with a line break', () => {
    const lines = githubOutputLines({ outcome: 'a\nb', tokens: '1', 'cost-usd': '', 'pull-request-url': '', escalated: 'false' });
    expect(lines).toBe('outcome<<LOOP_RUNTIME_EOF\na\nb\nLOOP_RUNTIME_EOF\ntokens=1\ncost-usd=\npull-request-url=\nescalated=false\n');
  });
});

describe('the Action installs itself only when its checkout has no build', () => {
  it('checks for the very file the bin runs (a stale path made every run reinstall and rebuild the checkout)', async () => {
    const action = parse(await readFile(join(ROOT, 'action.yml'), 'utf8')) as { runs: { steps: Array<{ run?: string }> } };
    const install = action.runs.steps.find((step) => step.run?.includes('npm ci'))?.run ?? '';
    const checked = /-f "\$GITHUB_ACTION_PATH\/([^"]+)"/.exec(install)?.[1];
    expect(checked).toBeDefined();
    const bin = await readFile(join(ROOT, 'bin', 'loop-runtime.js'), 'utf8');
    expect(bin).toContain(`'../${checked}'`);
  });
});
