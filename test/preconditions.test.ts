/**
 * Cheap preconditions run before the first model call: a tick that cannot
 * finish (no commit, no remote, no GitHub token, agent not installed) stops
 * with PRECONDITION_FAILED (exit 3), recorded as a failed tick, having called
 * no backend. `validate` and `--dry-run` report the same problems.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MockBackend } from '../backends/mock/index.js';
import { main } from '../src/cli/main.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import { openRuntime } from '../src/composition/runtime.js';
import { checkPreconditions } from '../src/use-cases/preconditions.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { dailyTriagePattern } from './fixtures/patterns.js';
import { addBareRemote, cleanupTempDirs, makeRepo, tempDir } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

/** No GitHub credentials and no gh: PATH keeps git and node only. */
const ENV = { ...process.env, NO_COLOR: '1', CI: '', GITHUB_TOKEN: undefined, GH_TOKEN: undefined, PATH: '/usr/bin:/bin' };

async function cli(cwd: string, argv: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { cwd, env: { ...ENV, ...env }, isTTY: false, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

const LOOP_MD = (delivery: string) => `---
loop-runtime:
  backend: mock
  verify:
    - "true"
  delivery:
    mode: ${delivery}
  loops:
    daily-triage: {}
---
# Loops
`;

async function runWith(root: string, env: Record<string, string | undefined>) {
  const backend = new MockBackend();
  const opened = await openRuntime({ cwd: root, env: { ...ENV, ...env }, clock: new FixedClock('2026-05-01T10:00:00Z', 1000), backend });
  if (!opened.ok) throw new Error(JSON.stringify(opened.issues));
  const outcome = await opened.runtime.run('daily-triage', { level: 'L2' }).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error: error as { code?: string; message: string } }),
  );
  return { backend, outcome };
}

describe('preconditions before the first model call', () => {
  it('pull-request mode with no token and no gh: PRECONDITION_FAILED naming the fix, zero backend calls, recorded as a failed tick', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD('pull-request') });
    await addBareRemote(root);
    const { backend, outcome } = await runWith(root, {});
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe('PRECONDITION_FAILED');
    expect(outcome.error.message).toMatch(/neither GITHUB_TOKEN nor GH_TOKEN is set[\s\S]*To fix: export GITHUB_TOKEN/);
    expect(backend.calls).toHaveLength(0);
    const runLog = await readFile(join(root, 'loop-run-log.md'), 'utf8');
    expect(runLog).toMatch(/"outcome":"failed"[^\n]*"kind":"precondition-failed"/);
    expect(await readFile(join(root, 'STATE.md'), 'utf8')).toMatch(/failed \(precondition-failed\): .*GITHUB_TOKEN/);
  });

  it('the twin: with a token the same loop calls its backend', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD('pull-request') });
    await addBareRemote(root);
    // An unreachable API: the delivery fails later, but the preconditions hold and the model is called.
    const { backend } = await runWith(root, { GITHUB_TOKEN: 'test-token', GITHUB_API_URL: 'http://127.0.0.1:9', GITHUB_REPOSITORY: 'acme/demo' });
    expect(backend.calls.length).toBeGreaterThan(0);
  });

  it('push mode with no remote stops before the model call', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD('push') });
    const { backend, outcome } = await runWith(root, {});
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PRECONDITION_FAILED', message: expect.stringContaining('no remote named "origin"') } });
    expect(backend.calls).toHaveLength(0);
  });

  it('no sandbox for the verification commands: SANDBOX_UNAVAILABLE (exit 5) before any model call, recorded as a failed tick', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD('local') });
    const backend = new MockBackend();
    const opened = await openRuntime({ cwd: root, env: { ...ENV, PATH: '/nonexistent' }, clock: new FixedClock('2026-05-01T10:00:00Z', 1000), backend });
    if (!opened.ok) throw new Error('config');
    await expect(opened.runtime.run('daily-triage', { level: 'L3' })).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
    expect(backend.calls).toHaveLength(0);
    expect(await readFile(join(root, 'loop-run-log.md'), 'utf8')).toMatch(/"outcome":"failed"[^\n]*"kind":"precondition-failed"/);
  });

  it('--dry-run in a repository with `git init` and no commit fails with exit 3 and the clear message; with a commit it rehearses', async () => {
    const root = await tempDir('loop-no-commit-');
    execFileSync('git', ['init', '--quiet', '--initial-branch=main'], { cwd: root });
    await writeFile(join(root, 'LOOP.md'), LOOP_MD('local'));
    const result = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--dry-run', '--json']);
    expect(result.code).toBe(3);
    const error = cliJson(result.stdout).error;
    expect(error).toMatchObject({ code: 'PRECONDITION_FAILED', message: expect.stringContaining('is a git repository with no commit'), fix: expect.stringContaining('make a first commit') });
    const text = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--dry-run']);
    expect(text.stderr).toMatch(/no commit[\s\S]*To fix: make a first commit/);

    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '--allow-empty', '-m', 'initial'], { cwd: root });
    const rehearsed = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--dry-run', '--json']);
    expect(rehearsed.code).toBe(0);
    expect(cliJson(rehearsed.stdout).ticks[0].kind).not.toBe('failed');
  });

  it('validate asks git once per repository, not once per loop: 40 acting loops, push delivery, a handful of git processes', async () => {
    const ids = Array.from({ length: 40 }, (_, index) => `generated-${index}`);
    const pattern = (id: string) => `  - { id: ${id}, name: Generated ${id}, file: ${id}.md, goal: A generated acting loop, cadence: 1d, risk: low, tools: [claude-code], skills: [loop-triage], state: STATE.md, phases: [report, act], human_gates: [design-decisions] }`;
    const root = await makeRepo({
      'registry.yaml': `patterns:\n${ids.map(pattern).join('\n')}\n`,
      'LOOP.md': `---\nloop-runtime:\n  backend: mock\n  level: L2\n  verify: ["true"]\n  delivery: { mode: push }\n  loops:\n${ids.map((id) => `    ${id}: {}`).join('\n')}\n---\n# Loops\n`,
    });
    const wrapper = await tempDir('validate-git-path-');
    const log = join(wrapper, 'calls.log');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    await writeFile(join(wrapper, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
    // The git runner takes PATH from the process (as the dry-run test's counter does).
    const previousPath = process.env.PATH;
    process.env.PATH = `${wrapper}:${previousPath ?? ''}`;
    const result = await cli(root, ['validate', '--json']).finally(() => {
      process.env.PATH = previousPath;
    });
    const warnings = (cliJson(result.stdout) as { warnings: Array<{ message: string }> }).warnings;
    // Every loop still gets its own precondition warning (no remote "origin"), from one answer.
    expect(warnings.filter((warning) => warning.message.includes('no remote named "origin"'))).toHaveLength(40);
    const calls = (await readFile(log, 'utf8')).trim().split('\n');
    expect(calls.length).toBeLessThanOrEqual(4);
  });

  it('validate reports the same problems, as warnings with their fix', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD('pull-request').replace('  loops:\n', '  level: L2\n  loops:\n') });
    const result = await cli(root, ['validate', '--json']);
    const warnings = cliJson(result.stdout).warnings as Array<{ code: string; message: string; fix: string }>;
    expect(warnings.map((warning) => warning.code)).toEqual(expect.arrayContaining(['PRECONDITION_DELIVERY_REMOTE', 'PRECONDITION_GITHUB_AUTH']));
    expect(warnings.find((warning) => warning.code === 'PRECONDITION_GITHUB_AUTH')?.fix).toMatch(/export GITHUB_TOKEN/);
  });

  it('a configured CLI agent that is not installed, or has no credentials variable, is a precondition problem', async () => {
    const root = await makeRepo();
    const plan = buildPlan(dailyTriagePattern, { level: 'L1', overrides: { backend: 'claude-code' } });
    const problems = await checkPreconditions(root, plan, { env: { PATH: '/nonexistent' }, dryRun: false });
    expect(problems.map((problem) => problem.check)).toEqual(['backend-binary', 'backend-credentials']);
    // The agent runs with a HOME of its own: a subscription user is told how to hand it a token instead of a key.
    expect(problems[1]!.fix).toContain('export ANTHROPIC_API_KEY=<your key>');
    expect(problems[1]!.fix).toContain('run `claude setup-token` and export the token it prints as CLAUDE_CODE_OAUTH_TOKEN');
    expect(await checkPreconditions(root, plan, { env: { PATH: '/nonexistent' }, dryRun: true })).toEqual([]);
    expect((await checkPreconditions(root, plan, { env: { PATH: '/nonexistent', CLAUDE_CODE_OAUTH_TOKEN: 'tok' }, dryRun: false })).map((problem) => problem.check)).toEqual(['backend-binary']);
  });

  it('opencode with no model and no Anthropic or OpenAI key to choose one from is refused: it would pick its own default endpoint, never named by the loop', async () => {
    const root = await makeRepo();
    const unnamed = buildPlan(dailyTriagePattern, { level: 'L1', overrides: { backend: 'opencode' } });
    const problems = await checkPreconditions(root, unnamed, { env: { PATH: '/nonexistent', OPENROUTER_API_KEY: 'sk-or' }, dryRun: false });
    expect(problems.map((problem) => problem.check)).toEqual(['backend-binary', 'backend-model']);
    expect(problems[1]!.message).toBe("daily-triage runs opencode, but no model is configured, and neither ANTHROPIC_API_KEY nor OPENAI_API_KEY is set to choose one from (opencode's own default may be a hosted model loop-runtime was never told about).");
    expect(problems[1]!.fix).toContain('set ANTHROPIC_API_KEY (runs anthropic/claude-sonnet-5) or OPENAI_API_KEY (runs openai/gpt-6-sol), or set `model: <provider>/<model>`');
    // A key to choose from is enough: the backend then runs that provider's model.
    for (const key of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY']) {
      expect((await checkPreconditions(root, unnamed, { env: { PATH: '/nonexistent', [key]: 'sk' }, dryRun: false })).map((problem) => problem.check)).toEqual(['backend-binary']);
    }
    const named = buildPlan(dailyTriagePattern, { level: 'L1', overrides: { backend: 'opencode', model: 'anthropic/claude-sonnet-4-5' } });
    expect((await checkPreconditions(root, named, { env: { PATH: '/nonexistent' }, dryRun: false })).map((problem) => problem.check)).not.toContain('backend-model');
  });
});
