/**
 * Issue 10 #6 end to end: the engine's default workspace (a MemoryWorkspace,
 * as in the README library example and the dry-run fallback) must let the
 * anti-gaming checks see what the implementer wrote.
 */
import { describe, expect, it } from 'vitest';
import { MockBackend } from '../../backends/mock/index.js';
import { buildPlan } from '../../src/core/plan/build-plan.js';
import { LoopEngine } from '../../src/core/engine/loop-engine.js';
import type { AgentBackend, AgentRequest, StateWriter, TickRecord } from '../../src/core/ports/index.js';
import { createMemoryPorts } from '../../src/testing/create-memory-ports.js';
import { FixedClock } from '../../src/testing/fixed-clock.js';
import { dailyTriagePattern } from '../fixtures/patterns.js';

const state: StateWriter = {
  specificationVersion: 'state-writer-v1',
  async recordTick(_record: TickRecord) {},
  async note() {},
};

/** The mock implementer, plus one extra file written through the workspace's confined file access. */
function implementerWriting(path: string, content: string): AgentBackend {
  const mock = new MockBackend();
  return {
    specificationVersion: 'agent-backend-v2',
    name: 'mock+extra-file',
    async run(request: AgentRequest) {
      const result = await mock.run(request);
      if (request.role === 'implement') await request.files?.write(path, content);
      return result;
    },
  };
}

async function tickWith(backend: AgentBackend, testEdits: 'escalate' | 'allow' = 'escalate') {
  const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'], testEdits } });
  const ports = createMemoryPorts({ plan, clock: new FixedClock('2026-11-23T08:00:00Z', 1000), commands: {} });
  const engine = new LoopEngine(plan, { ...ports, backend, state });
  return engine.tick();
}

describe("anti-gaming on the engine's default (memory) workspace", () => {
  it('rejects a change that adds a skipped test', async () => {
    const result = await tickWith(implementerWriting('src/example.test.ts', "it.skip('answers', () => {\n  expect(answer).toBe(42);\n});\n"));
    expect(result).toMatchObject({ kind: 'rejected', reasons: expect.arrayContaining([expect.stringMatching(/skip/)]) });
  });

  it('proposes the same change with the test left on in a loop allowed to edit tests (so a gate that rejects everything fails here)', async () => {
    const result = await tickWith(implementerWriting('src/example.test.ts', "it('answers', () => {\n  expect(answer).toBe(42);\n});\n"), 'allow');
    expect(result.kind).toBe('proposed');
  });

  it('escalates that new test to a human by default, naming it (test edits are a human decision)', async () => {
    const result = await tickWith(implementerWriting('src/example.test.ts', "it('answers', () => {\n  expect(answer).toBe(42);\n});\n"));
    expect(result).toMatchObject({ kind: 'escalated', reason: expect.stringContaining('src/example.test.ts (test file added)') });
  });
});
