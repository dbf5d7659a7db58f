/**
 * The README's library example, run through the package's own exports map
 * (`loop-runtime` and `loop-runtime/testing` resolve to dist/ after the build).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LoopEngine, buildPlan, loadRegistry, formatDiagnostic } from 'loop-runtime';
import { createMemoryPorts } from 'loop-runtime/testing';

describe('README library example', () => {
  it('runs a tick from the exported API', async () => {
    const registryYamlText = await readFile(join(import.meta.dirname, '..', 'registry.yaml'), 'utf8');
    const registry = loadRegistry(registryYamlText);
    if (!registry.ok) throw new Error(registry.issues.map(formatDiagnostic).join('\n'));
    const pattern = registry.value.patterns.find((p) => p.id === 'daily-triage')!;
    const plan = buildPlan(pattern, { level: 'L2', overrides: { verify: ['npm test'] } });
    const ports = createMemoryPorts({ plan, commands: {} });
    const engine = new LoopEngine(plan, {
      ...ports,
    });
    const result = await engine.tick();
    const state = ports.state;
    expect(result.kind).toBe('proposed');
    if (result.kind !== 'proposed') return;
    expect(result.commit.branch).toBe('loop/daily-triage/mock-1');
    expect(result.verification.verdict).toBe('APPROVE');
    expect(ports.commands?.runs.map((run) => run.command)).toEqual(['npm test', 'npm test']); // at the base (fail-to-pass evidence), then over the change
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
    expect(state.runLogText).toContain('"pattern":"daily-triage"');
    expect(state.stateText).toContain('Last run: 2026-11-21T08:00:00Z');
  });
});
