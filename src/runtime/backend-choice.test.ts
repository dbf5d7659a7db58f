import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../test/fixtures/patterns.js';
import { isLoopRuntimeError } from '../core/errors.js';
import { agentCandidates } from '../core/plan/agent-tools.js';
import { buildPlan } from '../core/plan/build-plan.js';
import { describeBackendChoice, withChosenBackend } from './backend-choice.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'backend-choice-'));
  await mkdir(path.join(root, 'node_modules', '.bin'), { recursive: true });
  await writeFile(path.join(root, 'node_modules', '.bin', 'codex'), '#!/bin/sh\n');
  await chmod(path.join(root, 'node_modules', '.bin', 'codex'), 0o755);
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
});
