/**
 * One-off flags and rehearsals change no configuration: `run --level L2`
 * applies to that run only, and a real tick of a catalogue loop the repository
 * never configured is refused (exit 3) instead of enrolling the loop through
 * the state file or ledger it would write.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProject, resolvePlan } from '../../src/project/load-project.js';
import { openRuntime } from '../../src/composition/runtime.js';
import { FixedClock } from '../../src/testing/index.js';
import { loopMarkdown, runCli } from '../e2e-fixtures.js';
import { cleanupTempDirs, makeRepo } from '../git-fixtures.js';

afterAll(cleanupTempDirs);

async function open(root: string) {
  const opened = await openRuntime({ cwd: root, env: {}, clock: new FixedClock('2026-11-23T08:00:00Z') });
  if (!opened.ok) throw new Error(JSON.stringify(opened.issues));
  return opened.runtime;
}

async function project(root: string) {
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.project;
}

describe('a flag applies to its invocation only', () => {
  it('run --level L2 once leaves the loop at its configured level', async () => {
    const root = await makeRepo({ 'src/a.ts': 'export {};\n', 'LOOP.md': loopMarkdown({ backend: 'mock', verify: [], loops: { 'daily-triage': {} } }) });
    const before = await resolvePlan(await project(root), 'daily-triage');
    if (!before.ok) throw new Error('plan');
    const result = await (await open(root)).run('daily-triage', { level: 'L2' });
    expect(result.ok && result.value.level).toBe('L2');
    expect(result.ok && result.value.ticks[0]?.kind).not.toBe('halted');

    const ledger = JSON.parse(await readFile(join(root, 'loop-ledger.json'), 'utf8'));
    expect(ledger.level).toBeUndefined();
    const after = await resolvePlan(await project(root), 'daily-triage');
    expect(after.ok && { level: after.plan.level, source: after.plan.levelSource }).toEqual({ level: before.plan.level, source: before.plan.levelSource });
    expect(before.plan.level).not.toBe('L2');
  });
});

describe('unconfigured catalogue loops never enrol themselves', () => {
  it('refuses a real tick of an unconfigured loop with exit 3 and the fix; --dry-run still rehearses it', async () => {
    const root = await makeRepo({ 'src/a.ts': 'export {};\n', 'LOOP.md': loopMarkdown({ backend: 'mock', verify: [], loops: { 'daily-triage': {} } }) });
    const refused = await runCli(root, ['run', 'ci-sweeper', '--json']);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain('LOOP_NOT_CONFIGURED');
    expect(refused.stdout).toContain('ci-sweeper: {}');
    const due = await runCli(root, ['run', '--due', 'ci-sweeper']);
    expect(due.code).toBe(3);
    expect(due.stderr).toContain('loops:');
    const rehearsal = await runCli(root, ['run', 'ci-sweeper', '--dry-run', '--json']);
    expect(rehearsal.code).toBe(0);
    expect((await project(root)).configuredLoops).toEqual(['daily-triage']);
  });

  it('a state file and ledger a tick created do not count as configuration; one a human wrote in does', async () => {
    const root = await makeRepo({ 'src/a.ts': 'export {};\n', 'LOOP.md': loopMarkdown({ backend: 'mock', verify: [], loops: { 'ci-sweeper': {} } }) });
    const ran = await (await open(root)).run('ci-sweeper', {});
    expect(ran.ok).toBe(true);
    const stateText = await readFile(join(root, 'ci-sweeper-state.md'), 'utf8');
    // The opt-in is withdrawn: what the tick wrote must not keep the loop enrolled.
    await writeFile(join(root, 'LOOP.md'), loopMarkdown({ backend: 'mock', verify: [] }));
    expect((await project(root)).configuredLoops).toEqual([]);
    const again = await (await open(root)).run('ci-sweeper', {});
    expect(!again.ok && again.issues[0]?.code).toBe('LOOP_NOT_CONFIGURED');

    await writeFile(join(root, 'ci-sweeper-state.md'), `${stateText}\n- known flaky: test/slow.test.ts (ignore)\n`);
    expect((await project(root)).configuredLoops).toEqual(['ci-sweeper']);
  });
});
