/**
 * Issue 25: the implementer gets what a human would — the commands that will verify its change (with the real
 * runner named, even when a scaffolded AGENTS.md names another), the base's failing tests and their output.
 * A real Python repository, zero config, the real BwrapRunner; the implement request is recorded and rendered
 * with the prompt builder every CLI backend uses.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { dailyTriagePattern } from './fixtures/patterns.js';
import { cleanupTempDirs, makeRepo } from './git-fixtures.js';
import { NODE_FIX, NODE_REPO, PYTHON_FIX, PYTHON_REPO, type Edit } from './per-test-fixtures.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import { LoopEngine } from '../src/core/engine/loop-engine.js';
import { GitWorkspace } from '../src/adapters/workspace/git-workspace.js';
import { BwrapRunner } from '../src/adapters/command-runner/bwrap-runner.js';
import { detectVerifyCommands } from '../src/project/detect-verify.js';
import { createMemoryPorts } from '../src/testing/create-memory-ports.js';
import { ScriptedEditBackend } from '../src/testing/scripted-edit-backend.js';
import { buildRolePrompt } from '../backends/shared/prompt.js';
import type { AgentRequest, AgentResult, ImplementRequest } from '../src/core/ports/index.js';

afterAll(cleanupTempDirs);

class RecordingBackend extends ScriptedEditBackend {
  readonly requests: AgentRequest[] = [];
  override async run(request: AgentRequest): Promise<AgentResult> {
    this.requests.push(request);
    return super.run(request);
  }
}

/** What loop-init scaffolds into every repository, whatever its language. */
const SCAFFOLDED_AGENTS_MD = '# AGENTS.md\n\nBefore you finish, run `npm test` and make sure it passes.\n';

async function implementRequest(files: Record<string, string>, edit: Edit) {
  const root = await makeRepo(files);
  const detected = await detectVerifyCommands(root);
  const plan = buildPlan(dailyTriagePattern, { level: 'L2', detectedVerifyCommands: detected, overrides: { maxAttempts: 1 } });
  const memory = createMemoryPorts({ plan });
  const workspace = new GitWorkspace({ root, patternId: plan.pattern.id, clock: memory.clock });
  const backend = new RecordingBackend({ edit });
  const instructions = [{ name: 'AGENTS.md', text: SCAFFOLDED_AGENTS_MD }];
  const result = await new LoopEngine(plan, { ...memory, workspace, backend, commands: new BwrapRunner(), instructions }).tick();
  const request = backend.requests.find((entry): entry is ImplementRequest => entry.role === 'implement');
  if (!request) throw new Error(`no implement call (tick ${result.kind})`);
  return { detected, request, prompt: buildRolePrompt(request, { finish: 'done-tool' }) };
}

describe('the implementer is told how its change is verified and what fails at the base', () => {
  it('Python with an AGENTS.md saying `npm test`: pytest is named as the command that verifies; the failing test ids and output are in the request', async () => {
    const { detected, request, prompt } = await implementRequest({ ...PYTHON_REPO, 'AGENTS.md': SCAFFOLDED_AGENTS_MD }, PYTHON_FIX);
    expect(detected).toHaveLength(1);
    const command = detected[0]!;
    expect(command).toMatch(/pytest/);
    expect(request.verification?.commands).toEqual([{ command, runner: 'pytest' }]);
    const failing = request.verification?.baseFailing ?? [];
    expect(failing.map((entry) => entry.command)).toEqual([command]);
    expect(failing[0]?.tests).toEqual(['tests.test_textutil::test_parse_pair', 'tests.test_textutil::test_shout']);
    expect(failing[0]?.output).toMatch(/assert 'HI' == 'HI!'/);
    // The prompt: the real command named with its runner, above the out-of-date one, in the trusted system prompt.
    expect(prompt.system).toContain(`- \`${command}\` — pytest`);
    expect(prompt.system).toContain('names a different test command, it is out of date: use these');
    expect(prompt.system.indexOf('# How your change is verified')).toBeGreaterThan(prompt.system.indexOf('npm test'));
    // The base's results: volatile, after the item, as data.
    expect(prompt.user).toContain('<untrusted-data source="base test results">');
    expect(prompt.user).toContain('tests.test_textutil::test_shout');
    expect(prompt.user.indexOf('base test results')).toBeGreaterThan(prompt.user.indexOf('Work item:'));
  });

  it('npm test behind node --test: the runner and the script it runs are named', async () => {
    const { request, prompt } = await implementRequest(NODE_REPO, NODE_FIX);
    expect(request.verification?.commands).toEqual([{ command: 'npm test', runner: 'node-test', runs: 'node --test' }]);
    expect(request.verification?.baseFailing[0]?.tests.length).toBeGreaterThan(0);
    expect(prompt.system).toContain('- `npm test` — node --test (runs `node --test`)');
  });
});
