import { describe, expect, it } from 'vitest';
import { agentRequest } from '../../test/fakes/agent-request.js';
import { MockBackend } from './mock-backend.js';

const perTurn = { inputTokens: 900, outputTokens: 100 };

describe('MockBackend', () => {
  it('tags every answer with the role it was asked', async () => {
    const backend = new MockBackend();
    for (const role of ['triage', 'implement', 'check'] as const) {
      expect(await backend.run(agentRequest(role, '/tmp/ws'))).toMatchObject({ ok: true, role });
    }
  });

  it('runaway: counts turns and stops at maxTurns with reason max-turns, spending each turn', async () => {
    const backend = new MockBackend({ scenarios: ['runaway'], usage: { check: perTurn } });
    const result = await backend.run(agentRequest('check', '/tmp/ws', { maxTurns: 3 }));
    expect(result).toMatchObject({ ok: false, reason: 'max-turns', usage: { inputTokens: 2700, outputTokens: 300 } });
  });

  it('runaway: stops before the turn that would cross maxTokens', async () => {
    const backend = new MockBackend({ scenarios: ['runaway'], usage: { check: perTurn } });
    const result = await backend.run(agentRequest('check', '/tmp/ws', { maxTurns: 50, maxTokens: 4_500 }));
    expect(result).toMatchObject({ ok: false, reason: 'budget', usage: { inputTokens: 3600, outputTokens: 400 } });
  });

  it('answers an already aborted request with reason aborted and no spend', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await new MockBackend().run(agentRequest('triage', '/tmp/ws', { signal: controller.signal }));
    expect(result).toMatchObject({ ok: false, reason: 'aborted', usage: { inputTokens: 0, outputTokens: 0 } });
  });
});
