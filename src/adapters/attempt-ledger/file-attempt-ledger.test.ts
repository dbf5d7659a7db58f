import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../../core/ports/index.js';
import { isLoopRuntimeError } from '../../core/errors.js';
import { FileAttemptLedger } from './file-attempt-ledger.js';

/** The real loop-context CLI, when installed (override with LOOP_CONTEXT_BIN). */
const LOOP_CONTEXT = process.env.LOOP_CONTEXT_BIN ?? resolve(import.meta.dirname, '../../node_modules/.bin/loop-context');

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'attempt-ledger-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const AT = Date.UTC(2026, 8, 15, 8, 0, 39, 250);

function attempt(overrides: Partial<AttemptRecord> = {}): AttemptRecord {
  return { patternId: 'ci-sweeper', itemKey: 'ci:build', tickId: 'tick-1', at: AT, outcome: 'failure', error: 'tests failed', tokensUsed: 900, ...overrides };
}

describe('FileAttemptLedger', () => {
  it('creates loop-ledger.json in the loop-context format and reads it back, never writing the loop\'s level or pattern', async () => {
    const ledger = new FileAttemptLedger({ root, patternId: 'ci-sweeper', goal: 'Get CI green' });
    expect(await ledger.history()).toEqual([]);
    await ledger.append(attempt());
    await ledger.append(attempt({ tickId: 'tick-2', outcome: 'success', error: undefined, tokensUsed: 300 }));
    const file = JSON.parse(await readFile(join(root, 'loop-ledger.json'), 'utf8'));
    expect(file).toEqual({
      goal: 'Get CI green',
      attempts: [
        { iteration: 1, action: 'attempt ci:build', outcome: 'failure', error: 'tests failed', tokensUsed: 900, pattern: 'ci-sweeper', item: 'ci:build', tick: 'tick-1', at: '2026-09-15T08:00:39.250Z' },
        { iteration: 2, action: 'attempt ci:build', outcome: 'success', tokensUsed: 300, pattern: 'ci-sweeper', item: 'ci:build', tick: 'tick-2', at: '2026-09-15T08:00:39.250Z' },
      ],
    });
    expect(await ledger.history()).toEqual([attempt(), { ...attempt({ tickId: 'tick-2', outcome: 'success', tokensUsed: 300 }), error: undefined }].map(stripUndefined));
  });

  it('keeps unknown keys and attempts written by other tools', async () => {
    const path = join(root, 'loop-ledger.json');
    await writeFile(
      path,
      JSON.stringify({ goal: 'g', pattern: 'ci-sweeper', level: 'L2', owner: 'ops', attempts: [{ iteration: 4, action: 'manual', outcome: 'noop', note: 'by hand' }] }),
    );
    const ledger = new FileAttemptLedger({ root, patternId: 'other', goal: 'ignored' });
    await ledger.append(attempt());
    const file = JSON.parse(await readFile(path, 'utf8'));
    expect(Object.keys(file)).toEqual(['goal', 'pattern', 'level', 'owner', 'attempts']);
    expect(file.pattern).toBe('ci-sweeper');
    expect(file.attempts[0]).toEqual({ iteration: 4, action: 'manual', outcome: 'noop', note: 'by hand' });
    expect(file.attempts[1].iteration).toBe(5);
    expect((await ledger.history())[0]).toEqual({ patternId: null, itemKey: '', tickId: '', at: 0, outcome: 'noop', tokensUsed: 0 });
  });

  it('refuses to overwrite a corrupt ledger', async () => {
    const path = join(root, 'loop-ledger.json');
    await writeFile(path, '{"goal": "g", "attempts": [');
    const ledger = new FileAttemptLedger({ root });
    const error = await ledger.append(attempt()).catch((caught: unknown) => caught);
    expect(isLoopRuntimeError(error) && error.code).toBe('STATE_FAILED');
    expect(await readFile(path, 'utf8')).toBe('{"goal": "g", "attempts": [');
  });

  it.each([
    ['truncated JSON', '{"goal": "g", "attempts": ['],
    ['an empty file', ''],
    ['attempts that are not a list', '{"goal": "g", "attempts": {}}'],
    ['an attempt with an unknown outcome', '{"goal": "g", "attempts": [{"iteration": 1, "action": "a", "outcome": "maybe"}]}'],
    ['an attempt whose pattern is not a string', '{"goal": "g", "attempts": [{"iteration": 1, "action": "a", "outcome": "failure", "pattern": 7}]}'],
  ])('reads %s as a coded error naming the file, never as an empty history', async (_name, text) => {
    const path = join(root, 'loop-ledger.json');
    await writeFile(path, text);
    const error = await new FileAttemptLedger({ root }).history().catch((caught: unknown) => caught);
    expect(isLoopRuntimeError(error) && error.code).toBe('STATE_FAILED');
    expect(error instanceof Error && error.message).toContain(path);
    expect(error instanceof Error && error.message).toContain('To fix:');
  });

  it('reports an unreadable ledger (a directory in its place) as a coded error', async () => {
    await mkdir(join(root, 'loop-ledger.json'));
    const ledger = new FileAttemptLedger({ root });
    for (const action of [() => ledger.history(), () => ledger.append(attempt())]) {
      const error = await action().catch((caught: unknown) => caught);
      expect(isLoopRuntimeError(error) && error.code).toBe('STATE_FAILED');
      expect(error instanceof Error && error.message).toContain(join(root, 'loop-ledger.json'));
    }
  });

  it('reads attempts written before attempt-ledger-v2 (no pattern) as belonging to no known loop', async () => {
    await writeFile(join(root, 'loop-ledger.json'), JSON.stringify({ goal: 'g', pattern: 'ci-sweeper', attempts: [{ iteration: 1, action: 'a', outcome: 'failure', error: 'red', item: 'ci:build', tick: 't0', at: '2026-09-15T08:00:39.250Z' }] }));
    expect(await new FileAttemptLedger({ root }).history()).toEqual([{ patternId: null, itemKey: 'ci:build', tickId: 't0', at: AT, outcome: 'failure', error: 'red', tokensUsed: 0 }]);
  });

  it.skipIf(!existsSync(LOOP_CONTEXT))('is accepted by the real loop-context --check', async () => {
    const ledger = new FileAttemptLedger({ root, patternId: 'ci-sweeper' });
    await ledger.append(attempt({ outcome: 'success', error: undefined }));
    const ok = await execa(LOOP_CONTEXT, ['--check', '--ledger', 'loop-ledger.json', '--json'], { cwd: root, reject: false });
    expect(ok.exitCode, ok.stderr).toBe(0);
    for (let index = 0; index < 3; index += 1) await ledger.append(attempt({ tickId: `t${index}` }));
    const tripped = await execa(LOOP_CONTEXT, ['--check', '--ledger', 'loop-ledger.json', '--json'], { cwd: root, reject: false });
    // Three identical errors in a row: the breaker escalates, so it read our attempts.
    expect(tripped.exitCode, tripped.stdout + tripped.stderr).toBe(2);
  });
});

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
