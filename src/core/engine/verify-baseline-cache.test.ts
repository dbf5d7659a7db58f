import { describe, expect, it } from 'vitest';
import { dailyTriagePattern } from '../../../test/fixtures/patterns.js';
import { buildPlan } from '../plan/build-plan.js';
import { MemoryWorkspace } from '../../adapters/workspace/memory-workspace.js';
import { createMemoryPorts } from '../../testing/create-memory-ports.js';
import { ScriptedCommandRunner } from '../../testing/scripted-command-runner.js';
import { ScriptedEditBackend } from '../../testing/scripted-edit-backend.js';
import { baselineCacheKey } from '../verify/baseline-cache.js';
import { LoopEngine } from './loop-engine.js';

/** Two ticks on one unchanged base: the implementer changes nothing (a failed attempt), so the second tick acts again. */
async function twoTicks(options: { cache: boolean; exitCode?: number; spoil?: (workspace: MemoryWorkspace, key: string) => Promise<void> }) {
  const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['pytest -q'], maxAttempts: 3 } });
  const ports = createMemoryPorts({ plan });
  const workspace = new MemoryWorkspace({ files: { 'src/example.ts': 'export const answer = 41;\n' }, cacheBaselines: options.cache });
  const commands = new ScriptedCommandRunner(ports.clock, { exitCodes: { 'pytest -q': options.exitCode ?? 1 } });
  const backend = new ScriptedEditBackend({ edit: async () => undefined });
  const engine = () => new LoopEngine(plan, { ...ports, workspace, backend, commands });
  const first = await engine().tick();
  await options.spoil?.(workspace, baselineCacheKey('0000000', plan.phases.verify.commands, commands));
  const second = await engine().tick();
  return { first, second, runs: commands.runs.length, implementCalls: backend.calls.filter((role) => role === 'implement').length };
}

describe('base results cached per (base commit, command, environment)', () => {
  it('a second tick on an unchanged base runs the suite once, and says the results came from the cache', async () => {
    const { second, runs, implementCalls } = await twoTicks({ cache: true });
    expect(implementCalls).toBe(2);
    expect(runs).toBe(1);
    expect(second.steps.map((step) => step.note).join('\n')).toContain('results from the cache');
  });

  it('the twin: without the capability each tick runs it', async () => {
    expect((await twoTicks({ cache: false })).runs).toBe(2);
  });

  it.each([
    ['an unreadable value', async (workspace: MemoryWorkspace, key: string) => workspace.baselineCache!(workspace.inspect()[0]!.handle).write(key, 'garbage')],
    ['a partial value (no entry for the command)', async (workspace: MemoryWorkspace, key: string) => workspace.baselineCache!(workspace.inspect()[0]!.handle).write(key, [])],
    ['an entry for another command', async (workspace: MemoryWorkspace, key: string) => workspace.baselineCache!(workspace.inspect()[0]!.handle).write(key, [{ command: 'npm test', exitCode: 0, signal: null, timedOut: false, output: '', durationMs: 0, finishedAt: 0 }])],
  ])('%s is never trusted: the suite runs again', async (_name, spoil) => {
    expect((await twoTicks({ cache: true, spoil })).runs).toBe(2);
  });

  it('a command that could not run (exit 127) is not cached: the next tick tries again', async () => {
    const { first, runs } = await twoTicks({ cache: true, exitCode: 127 });
    expect(first.kind).toBe('failed');
    expect(runs).toBe(2);
  });
});
