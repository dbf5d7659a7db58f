import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendRunLogLine, parseRunLog } from '../../core/state/run-log.js';
import type { LoopHalt } from '../../core/ports/index.js';
import { FileKillSwitch } from './kill-switch.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'halt-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-23T08:00:00Z');
const halt: LoopHalt = { patternId: 'ci-sweeper', reason: 'backend-stopped', message: 'token sk-secret123 was refused', tickId: 't1', startedAt: T0, at: T0 + 3_000, tokens: 120 };
const switchFor = (patternId = 'ci-sweeper') => new FileKillSwitch({ root, env: {}, patternId, runLog: 'loop-run-log.md', redact: (text) => text.replaceAll('sk-secret123', '[REDACTED]'), backend: 'claude-code' });

describe('FileKillSwitch halts (kept in the run log)', () => {
  it('a halt written by one instance stops another (a new process), names the resume command, and only that loop', async () => {
    await switchFor().halt(halt);
    const status = await switchFor().check();
    expect(status).toMatchObject({ paused: true, halt: { reason: 'backend-stopped', tickId: 't1', message: 'token [REDACTED] was refused', tokens: 120 } });
    expect(status.source).toContain('loop-runtime resume ci-sweeper');
    expect(await switchFor('daily-triage').check()).toEqual({ paused: false });
    const [line] = parseRunLog(await readFile(join(root, 'loop-run-log.md'), 'utf8'));
    expect(line).toMatchObject({ pattern: 'ci-sweeper', kind: 'halted', reason: 'backend-stopped', tick_id: 't1', backend: 'claude-code', duration_s: 3 });
  });

  it('clearHalt appends who and when, and the loop runs again; a second clear changes nothing', async () => {
    await switchFor().halt(halt);
    const cleared = await switchFor().clearHalt({ by: 'alice@box', at: T0 + DAY });
    expect(cleared?.tickId).toBe('t1');
    expect(await switchFor().check()).toEqual({ paused: false });
    const before = await readFile(join(root, 'loop-run-log.md'), 'utf8');
    expect(parseRunLog(before).at(-1)).toMatchObject({ kind: 'resumed', by: 'alice@box', run_id: '2026-11-24T08:00:00Z', tokens_estimate: 0 });
    expect(await switchFor().clearHalt({ by: 'bob@box', at: T0 + 2 * DAY })).toBeNull();
    expect(await readFile(join(root, 'loop-run-log.md'), 'utf8')).toBe(before);
  });

  it('an unresolved halt survives run-log pruning by other loops; a resolved one is pruned', async () => {
    await switchFor().halt(halt);
    const path = join(root, 'loop-run-log.md');
    const other = { run_id: '2027-01-01T00:00:00Z', pattern: 'daily-triage', duration_s: 1, items_found: 0, actions_taken: 0, escalations: 0, tokens_estimate: 0, outcome: 'no-op' as const };
    const pruned = appendRunLogLine(await readFile(path, 'utf8'), other, { now: T0 + 40 * DAY });
    expect(parseRunLog(pruned).map((entry) => entry.kind ?? entry.pattern)).toEqual(['halted', 'daily-triage']);
    const resumed = appendRunLogLine(pruned, { ...other, pattern: 'ci-sweeper', kind: 'resumed' }, { now: T0 + 40 * DAY });
    expect(parseRunLog(appendRunLogLine(resumed, other, { now: T0 + 41 * DAY })).map((entry) => entry.kind ?? entry.pattern)).toEqual(['daily-triage', 'resumed', 'daily-triage']);
  });

  it('without a run log configured it keeps no halt (status readers of old setups)', async () => {
    const plain = new FileKillSwitch({ root, env: {}, patternId: 'ci-sweeper' });
    await plain.halt(halt);
    expect(await plain.check()).toEqual({ paused: false });
  });
});
