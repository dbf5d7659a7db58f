import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../test/fixtures/patterns.js';
import { LoopEngine } from '../core/engine/loop-engine.js';
import { buildPlan } from '../core/plan/build-plan.js';
import { compareTicks } from '../core/replay/compare-ticks.js';
import { createMemoryPorts } from '../testing/create-memory-ports.js';
import { FixedClock } from '../testing/fixed-clock.js';
import { recordPorts, type ReplayHistory } from './port-history.js';
import { worldPorts } from './world-ports.js';

const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'] } });

/** One in-memory tick (the mock acts, npm test passes, the checker approves), recorded at its ports. */
async function recordedTick(): Promise<ReplayHistory> {
  const ports = createMemoryPorts({ plan, clock: new FixedClock('2026-11-23T08:00:00Z', 1000), backend: { scenarios: ['act-accept'] }, commands: {} });
  const recorder = recordPorts(ports);
  const result = await new LoopEngine(plan, recorder.ports).tick();
  expect(result.kind).toBe('proposed');
  return JSON.parse(JSON.stringify(recorder.history(plan, result))) as ReplayHistory;
}

describe('worldPorts', () => {
  it('the same plan replays to the identical result with no difference', async () => {
    const history = await recordedTick();
    const world = worldPorts(history);
    const result = await new LoopEngine(plan, world.ports).tick();
    expect(compareTicks(history.result, result)).toEqual({ identical: true, facts: [], details: [] });
    expect(world.differences()).toEqual([]);
  });

  it('a plan without verification commands: the recorded command runs are reported as not asked, the tick still ends', async () => {
    const history = await recordedTick();
    const changed = buildPlan(dailyTriagePattern, { level: 'L2' });
    const world = worldPorts(history);
    const result = await new LoopEngine(changed, world.ports).tick();
    expect(result.kind).toBe('escalated');
    expect(compareTicks(history.result, result).facts).toEqual(expect.arrayContaining([{ fact: 'kind', recorded: 'proposed', now: 'escalated' }]));
    const differences = world.differences();
    expect(differences.filter((difference) => difference.kind === 'not-asked').map((difference) => difference.method)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^commands\.run\(\{"command":"npm test"/), expect.stringMatching(/^workspace\.commit\(/)]),
    );
    expect(differences).toContainEqual(expect.objectContaining({ kind: 'unexpected', asked: expect.stringMatching(/^workspace\.keep\(/), expected: expect.stringMatching(/^workspace\.commit\(/), answered: 'void' }));
  });

  it('a question the recording cannot answer stops the tick with where it diverged, never a crash of the replay itself', async () => {
    const history = await recordedTick();
    const changed = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test', 'npm run lint'] } });
    const world = worldPorts(history);
    await expect(new LoopEngine(changed, world.ports).tick()).rejects.toThrow(/recording holds no answer for commands\.run\(\) \(diverged at call \d+\)/);
    const differences = world.differences();
    expect(differences).toContainEqual(expect.objectContaining({ kind: 'arguments', method: 'commands.run', path: 'args[0].command', recorded: 'npm test', now: 'npm run lint' }));
    expect(differences).toContainEqual(expect.objectContaining({ kind: 'unexpected', asked: expect.stringMatching(/^commands\.run\(/), answered: 'error' }));
  });
});
