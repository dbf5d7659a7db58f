/**
 * `status` reads through its own small root (src/composition/status-root.ts), not the runtime: the same project
 * loading, store choice and report as `Runtime.status()`, which the console and the library call. The two must not
 * drift: one repository (the real loop-init's scaffold, with a pause and a spent tick on disk) is read both ways.
 */
import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStatus } from '../src/composition/status-root.js';
import { openRuntime } from '../src/composition/runtime.js';
import { FixedClock } from '../src/testing/index.js';

const run = promisify(execFile);
let repo: string;
const clock = new FixedClock(Date.parse('2026-11-27T12:00:00Z'));
const env = { ...process.env, LOOP_RUNTIME_DATABASE_URL: undefined, NO_COLOR: '1' };

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'status-root-'));
  await run('git', ['init', '--quiet', '--initial-branch=main', repo]);
  await run(join(import.meta.dirname, '..', 'node_modules', '.bin', 'loop-init'), [repo, '--pattern', 'daily-triage', '--tool', 'claude'], { env: { ...process.env, NO_COLOR: '1' } });
});

afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

describe('status through its own root', () => {
  it('reports what Runtime.status() reports, a pause and the run log included', async () => {
    await writeFile(join(repo, 'loop-pause-all'), 'maintenance\n');
    await appendFile(join(repo, 'loop-run-log.md'), `\n${JSON.stringify({ run_id: '2026-11-27T11:00:00Z', pattern: 'daily-triage', duration_s: 1, items_found: 1, actions_taken: 0, escalations: 0, tokens_estimate: 1234, outcome: 'report-only', tick_id: 'tick-1', level: 'L1', kind: 'report', backend: 'claude-code' })}\n`);
    const read = await readStatus({ cwd: repo, env, clock });
    const opened = await openRuntime({ cwd: repo, env, clock });
    if (!read.ok || !opened.ok) throw new Error('the scaffold did not load');
    const report = await opened.runtime.status();
    expect(read.value).toEqual(report);
    // Not an empty report agreeing with another: the loop, its pause and its run are there.
    expect(read.value.loops.map((loop) => [loop.id, loop.paused, loop.lastRuns.length])).toEqual([['daily-triage', true, 1]]);
    expect(read.value.store).toMatch(/^files/);
  });

  it('returns the configuration issues, as opening the runtime does', async () => {
    const broken = await mkdtemp(join(tmpdir(), 'status-root-broken-'));
    try {
      await writeFile(join(broken, 'LOOP.md'), '---\nloops: [\n---\n');
      const read = await readStatus({ cwd: broken, env, clock });
      const opened = await openRuntime({ cwd: broken, env, clock });
      expect(read.ok).toBe(false);
      expect(opened.ok).toBe(false);
      if (!read.ok && !opened.ok) expect(read.issues).toEqual(opened.issues);
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });
});
