import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../test/fixtures/patterns.js';
import { isLoopRuntimeError } from '../core/errors.js';
import { agentCandidates } from '../core/plan/agent-tools.js';
import { buildPlan } from '../core/plan/build-plan.js';
import { describeBackendChoice, withChosenBackend } from './backend-choice.js';
import { checkPreconditions } from '../use-cases/preconditions.js';

let root: string;
let opencodeRoot: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'backend-choice-'));
  await mkdir(path.join(root, 'node_modules', '.bin'), { recursive: true });
  await writeFile(path.join(root, 'node_modules', '.bin', 'codex'), '#!/bin/sh\n');
  await chmod(path.join(root, 'node_modules', '.bin', 'codex'), 0o755);
  opencodeRoot = path.join(root, 'with-opencode');
  await mkdir(path.join(opencodeRoot, 'node_modules', '.bin'), { recursive: true });
  for (const binary of ['opencode', 'codex']) {
    await writeFile(path.join(opencodeRoot, 'node_modules', '.bin', binary), '#!/bin/sh\n');
    await chmod(path.join(opencodeRoot, 'node_modules', '.bin', binary), 0o755);
  }
});
afterAll(() => rm(root, { recursive: true, force: true }));

const auto = (tools: string[], scaffolds: string[] = []) => buildPlan(dailyTriagePattern, { backendCandidates: agentCandidates(tools, scaffolds) });

describe('backend choice for a loop with no backend:', () => {
  it('runs the first installed candidate, passing its binary, and says why', () => {
    const { plan, choice } = withChosenBackend(auto(['claude-code', 'codex']), root, { PATH: '' });
    expect(plan.backend).toMatchObject({ name: 'codex', source: 'tools', options: { binary: path.join(root, 'node_modules', '.bin', 'codex') } });
    expect(choice.reason).toMatch(/pattern's tools \(codex\).*installed \(also possible: claude-code\)/);
  });

  it('keeps a configured binary and never re-chooses a configured backend', () => {
    const configured = buildPlan(dailyTriagePattern, { overrides: { backend: 'claude-code', backendOptions: { binary: '/opt/claude' } } });
    expect(withChosenBackend(configured, root, { PATH: '' }).plan).toBe(configured);
    const pinned = { ...auto(['codex']), backend: { ...auto(['codex']).backend, options: { binary: '/opt/codex' } } };
    expect(withChosenBackend(pinned, root, { PATH: '' }).plan.backend.options).toEqual({ binary: '/opt/codex' });
  });

  it('no installed candidate, or no agent named at all, is BACKEND_NOT_FOUND with the fix — never the mock', () => {
    for (const plan of [auto(['claude-code', 'opencode']), auto(['gh', 'grok'])]) {
      const empty = path.join(root, 'nothing');
      expect(describeBackendChoice(plan, empty, { PATH: '' })).toMatchObject({ backend: null, fix: expect.stringContaining('--backend mock') });
      let thrown: unknown;
      try {
        withChosenBackend(plan, empty, { PATH: '' });
      } catch (error) {
        thrown = error;
      }
      expect(isLoopRuntimeError(thrown) && thrown.code).toBe('BACKEND_NOT_FOUND');
    }
    expect(describeBackendChoice(auto(['claude-code', 'opencode']), root, { PATH: '' }).fix).toMatch(/^npm install @anthropic-ai\/claude-code, /);
    expect(auto(['gh']).backend.source).toBe('default');
  });

  it('opencode with no model gets the model of the provider whose key is set, in the plan the tick runs and in the reason', () => {
    const env = { PATH: '', ANTHROPIC_API_KEY: 'sk-ant', OPENAI_API_KEY: 'sk-oai' };
    const { plan, choice } = withChosenBackend(auto(['opencode', 'codex']), opencodeRoot, env);
    expect(plan.backend).toMatchObject({ name: 'opencode', model: 'anthropic/claude-sonnet-5', options: { binary: path.join(opencodeRoot, 'node_modules', '.bin', 'opencode') } });
    expect(choice).toMatchObject({ model: 'anthropic/claude-sonnet-5' });
    expect(choice.reason).toMatch(/installed \(also possible: codex\); model anthropic\/claude-sonnet-5 \(ANTHROPIC_API_KEY is set, and wins over OPENAI_API_KEY; set model: to choose\)$/);
    // A configured opencode with no model is chosen for the same way; a configured model is kept as it is.
    const configured = buildPlan(dailyTriagePattern, { overrides: { backend: 'opencode' } });
    expect(withChosenBackend(configured, opencodeRoot, { OPENAI_API_KEY: 'sk-oai' }).plan.backend.model).toBe('openai/gpt-6-sol');
    const named = buildPlan(dailyTriagePattern, { overrides: { backend: 'opencode', model: 'openai/gpt-4.1' } });
    expect(withChosenBackend(named, opencodeRoot, env).plan).toBe(named);
    expect(describeBackendChoice(named, opencodeRoot, env).reason).not.toContain('model');
    // Other agents are left alone.
    expect(withChosenBackend(auto(['codex']), opencodeRoot, env).plan.backend.model).toBeNull();
  });

  it('the precondition and the run cannot disagree: the tick is refused exactly when the run would have no model', async () => {
    const envs = [{}, { ANTHROPIC_API_KEY: 'sk-ant' }, { OPENAI_API_KEY: 'sk-oai' }, { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' }, { OPENROUTER_API_KEY: 'sk-or' }];
    const outcomes: boolean[] = [];
    for (const keys of envs) {
      const env = { PATH: '', ...keys };
      for (const written of [auto(['opencode']), buildPlan(dailyTriagePattern, { overrides: { backend: 'opencode', backendOptions: { binary: '/opt/opencode' } } })]) {
        const { plan } = withChosenBackend(written, opencodeRoot, env);
        const refused = (await checkPreconditions(opencodeRoot, plan, { env, dryRun: false })).some((problem) => problem.check === 'backend-model');
        expect(refused).toBe(plan.backend.model === null);
        // `validate` checks the written plan of a configured opencode: the same answer.
        if (written.backend.name === 'opencode') expect((await checkPreconditions(opencodeRoot, written, { env, dryRun: false })).some((problem) => problem.check === 'backend-model')).toBe(refused);
        outcomes.push(refused);
      }
    }
    expect(outcomes).toContain(true);
    expect(outcomes).toContain(false);
  });

  it('a loop-init --tool opencode scaffold (opencode.json beside skills/) chooses opencode over the pattern\'s earlier tools', () => {
    const { choice } = withChosenBackend(auto(['claude-code', 'codex', 'opencode'], ['opencode.json']), opencodeRoot, { PATH: '' });
    expect(choice).toMatchObject({ backend: 'opencode', source: 'tools' });
    expect(choice.reason).toMatch(/^no backend configured; the project's opencode.json and skills\/ scaffold names it and .*opencode is installed \(also possible: claude-code, codex\)$/);
  });
});
