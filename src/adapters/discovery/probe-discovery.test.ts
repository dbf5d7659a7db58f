import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionPlan, ProbeSpec } from '../../core/plan/execution-plan.js';
import { ProbeDiscovery } from './probe-discovery.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'probes-'));
  await writeFile(join(root, 'runs.json'), JSON.stringify([{ number: 3, title: 'Flaky login', url: 'https://example.test/o/r/issues/3' }]));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const plan = (...probes: ProbeSpec[]) => ({ earlyExit: { probes } }) as unknown as ExecutionPlan;
const probe = (name: string, command: string, found: ProbeSpec['found'] = 'non-empty', timeoutMs = 10_000): ProbeSpec => ({ name, command, found, timeoutMs });

describe('ProbeDiscovery', () => {
  const discovery = () => new ProbeDiscovery({ root, env: { PATH: process.env.PATH, SECRET_TOKEN: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' } });

  it('finds nothing when every probe ran fine and saw nothing', async () => {
    const result = await discovery().discover(plan(probe('empty', 'true'), probe('none', 'echo "[]"', 'json-entries'), probe('red', 'exit 1', 'exit-zero')));
    expect(result).toEqual({ found: false, notes: ['empty: nothing', 'none: nothing', 'red: nothing (exit 1)'], items: [] });
  });

  it('runs in the repository root and passes JSON entries on as untrusted items', async () => {
    const result = await discovery().discover(plan(probe('issues', 'cat runs.json', 'json-entries'), probe('nothing', 'true')));
    expect(result.found).toBe(true);
    expect(result.items).toEqual([{ key: 'issue#3', title: 'Flaky login', untrustedDetail: expect.stringContaining('"number":3') }]);
  });

  it('a probe whose tool is missing is unknown, so the tick goes on to triage', async () => {
    const result = await discovery().discover(plan(probe('gh', 'command -v no-such-tool-here >/dev/null 2>&1 || exit 127; no-such-tool-here', 'json-entries'), probe('empty', 'true')));
    expect(result.found).toBe(true);
    expect(result.notes[0]).toMatch(/^gh: unknown \(a tool it needs is not installed or not runnable: exit 127/);
  });

  it('a probe that runs past its timeout is unknown', async () => {
    const result = await discovery().discover(plan(probe('slow', 'sleep 5', 'non-empty', 200)));
    expect(result).toMatchObject({ found: true, notes: ['slow: unknown (timed out after 0s)'] });
  });

  it('redacts secrets from what it notes', async () => {
    const result = await discovery().discover(plan(probe('leak', 'echo "token $SECRET_TOKEN" >&2; exit 3')));
    expect(result.notes[0]).toContain('exit 3');
    expect(result.notes[0]).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });
});
