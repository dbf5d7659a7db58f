/**
 * The state adapters against the real files `loop-init` scaffolds and the
 * real `loop status` reader: golden updates of every starter's state file,
 * byte preservation outside owned blocks, the run-log template, and two
 * processes writing at once.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TickRecord } from '../src/core/ports/index.js';
import { FileAttemptLedger } from '../src/adapters/attempt-ledger/file-attempt-ledger.js';
import { FileBudgetLedger } from '../src/adapters/budget-ledger/file-budget-ledger.js';
import { FileStateWriter } from '../src/adapters/state-writer/file-state-writer.js';
import { RUN_LOG_MARKER, formatRunLogLine, parseRunLog, runLogLineFromTick } from '../src/core/state/run-log.js';
import { updateStateFile } from '../src/core/state/state-file.js';
import { bundledChild } from './bundled-child.js';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'node_modules', '.bin');

/** Each loop-init pattern and the state file it scaffolds. */
const STARTERS = {
  'daily-triage': 'STATE.md',
  'ci-sweeper': 'ci-sweeper-state.md',
  'pr-babysitter': 'pr-babysitter-state.md',
  'dependency-sweeper': 'dependency-sweeper-state.md',
  'post-merge-cleanup': 'post-merge-state.md',
  'changelog-drafter': 'changelog-drafter-state.md',
  'issue-triage': 'issue-triage-state.md',
} as const;
type Pattern = keyof typeof STARTERS;
const PATTERNS = Object.keys(STARTERS) as Pattern[];

const START = Date.UTC(2026, 8, 15, 8, 0, 39);

function tick(patternId: string, overrides: Partial<TickRecord> = {}): TickRecord {
  return {
    tickId: 'tick-1',
    patternId,
    startedAt: START,
    finishedAt: START + 10_000,
    outcome: 'escalated',
    kind: 'escalated',
    level: 'L2',
    itemsFound: 9,
    actionsTaken: 1,
    escalations: 2,
    tokens: 52_000,
    summary: 'two items need a human',
    findings: [
      { severity: 'watch', summary: 'flaky login test', itemKey: 'ci:login' },
      { severity: 'high', summary: 'main is red since 07:10' },
    ],
    waiting: [
      { itemKey: '#123', title: 'auth token refresh fails', loopAction: 'fix proposed on loop/123, kept for review', humanDecision: 'merge or close loop/123' },
      { itemKey: '#130', title: 'bump of a denylisted dependency', loopAction: 'escalated by the gate', humanDecision: 'approve the upgrade' },
    ],
    ...overrides,
  };
}

/**
 * Removes what the runtime owns: its blocks, and the `Last run:`/`Run log:`
 * values. A block appended to a file that ended without a newline has to
 * terminate that last line first: the one byte we add outside a block.
 */
function outsideOwned(text: string): string {
  return `${text}\n`
    .replace(/\n\n$/, '\n')
    .replace(/^<!-- loop-runtime:([a-z-]+):(\S+) -->\n[\s\S]*?^<!-- \/loop-runtime:\1:\2 -->(\n|$)/gm, '')
    .replace(/^(\s*(?:[-*]\s+)?(?:\*\*)?Last run:).*$/im, '$1 <owned>')
    .replace(/^Run log:.*$/gm, 'Run log: <owned>');
}

const dirs: Partial<Record<Pattern, string>> = {};
const originals: Partial<Record<Pattern, string>> = {};
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'state-files-'));
  await Promise.all(
    PATTERNS.map(async (pattern) => {
      const dir = join(scratch, pattern);
      await execa('git', ['init', '-q', dir]);
      await execa(join(BIN, 'loop-init'), ['.', '--pattern', pattern, '--tool', 'claude'], { cwd: dir });
      dirs[pattern] = dir;
      originals[pattern] = await readFile(join(dir, STARTERS[pattern]), 'utf8');
    }),
  );
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe.each(PATTERNS)('%s starter state file', (pattern) => {
  const update = (text: string) => {
    let next = updateStateFile(text, { tick: tick(pattern) });
    next = updateStateFile(next, { note: { patternId: pattern, at: START + 5_000, line: 'Budget: 82% of the daily cap, switched to report-only' } });
    return next;
  };

  it('matches the golden update', async () => {
    await expect(update(originals[pattern] ?? '')).toMatchFileSnapshot(`./golden/state-files/${pattern}.md`);
  });

  it('changes no byte outside its blocks, the Last run line and the Run log line', () => {
    const original = originals[pattern] ?? '';
    const first = update(original);
    expect(first).toMatch(/^Last run: 2026-09-15T08:00:39Z$/m);
    expect(outsideOwned(first)).toBe(outsideOwned(original));
    // A human edits a section of their own between ticks; the next tick keeps it.
    const edited = first.replace(/^(## .*\n)/m, '$1- human: do not touch this\n');
    const second = updateStateFile(edited, {
      tick: tick(pattern, { startedAt: START + 3_600_000, findings: [], waiting: [] }),
    });
    expect(outsideOwned(second)).toBe(outsideOwned(edited));
    expect(second).toContain('- human: do not touch this\n');
    // Waiting items survive until a human ticks them; findings and the stale note are gone.
    expect(second).toContain('- [ ] #123 — auth token refresh fails');
    expect(second).not.toContain('flaky login test');
    expect(second).not.toContain('Budget: 82%');
  });
});

describe('run log on the real template', () => {
  it('appends below the marker of a template that ends without a newline', async () => {
    const dir = dirs['ci-sweeper'] ?? '';
    const template = await readFile(join(dir, 'loop-run-log.md'), 'utf8');
    expect(template.endsWith(RUN_LOG_MARKER)).toBe(true);
    const writer = new FileStateWriter({ root: dir, stateFile: 'ci-sweeper-state.md', runLog: 'loop-run-log.md' });
    await writer.recordTick(tick('ci-sweeper'));
    const text = await readFile(join(dir, 'loop-run-log.md'), 'utf8');
    expect(text).toBe(`${template}\n${formatRunLogLine(runLogLineFromTick(tick('ci-sweeper')))}\n`);
  });
});

describe('the real `loop status --json`', () => {
  it('reads back the last run, pattern, outcome, tokens and attempts we wrote', async () => {
    const dir = dirs['pr-babysitter'] ?? '';
    const writer = new FileStateWriter({ root: dir, stateFile: 'pr-babysitter-state.md', runLog: 'loop-run-log.md' });
    await writer.recordTick(tick('pr-babysitter', { outcome: 'no-op', kind: 'no-op', tokens: 0 }));
    const later = START + 3_600_000;
    await writer.recordTick(tick('pr-babysitter', { tickId: 'tick-2', startedAt: later, finishedAt: later + 4_000, outcome: 'fix-proposed', tokens: 31_337 }));
    await new FileAttemptLedger({ root: dir, patternId: 'pr-babysitter' }).append({
      patternId: 'pr-babysitter', itemKey: '#7', tickId: 'tick-2', at: later, outcome: 'failure', error: 'checks red', tokensUsed: 31_337,
    });
    const result = await execa(join(BIN, 'loop'), ['status', dir, '--json'], { reject: false });
    const status = JSON.parse(result.stdout);
    expect(status.stateFile).toBe('pr-babysitter-state.md');
    expect(status.lastRunFromState).toBe('2026-09-15T09:00:39Z');
    expect(status.recentRuns[0]).toMatchObject({
      run_id: '2026-09-15T09:00:39Z',
      pattern: 'pr-babysitter',
      outcome: 'fix-proposed',
      tokens_estimate: 31_337,
      duration_s: 4,
    });
    expect(status.recentRuns[1]).toMatchObject({ run_id: '2026-09-15T08:00:39Z', outcome: 'no-op' });
    expect(status.patterns).toContain('pr-babysitter');
    expect(status.ledger).toMatchObject({ present: true, pattern: 'pr-babysitter', attempts: 1 });
  });
});

describe('two processes at once', () => {
  it('lose no run-log lines, spend lines or state-file blocks', async () => {
    const dir = dirs['daily-triage'] ?? '';
    const child = join(scratch, 'child.ts');
    await writeFile(
      child,
      `import { FileStateWriter } from ${JSON.stringify(join(ROOT, 'src/adapters/state-writer/file-state-writer.js'))};
import { FileBudgetLedger } from ${JSON.stringify(join(ROOT, 'src/adapters/budget-ledger/file-budget-ledger.js'))};
const [root, tag, count] = process.argv.slice(2).filter((arg) => arg !== '--');
const writer = new FileStateWriter({ root, stateFile: 'STATE.md', runLog: 'loop-run-log.md' });
const ledger = new FileBudgetLedger({ root });
console.log('ready');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.pause();
const start = ${START};
for (let index = 0; index < Number(count); index += 1) {
  const at = start + index * 1000;
  await ledger.record({ at, day: '2026-09-15', patternId: tag, tickId: tag + '-' + index, phase: 'triage', tokens: 1, costUsd: null });
  await writer.recordTick({ tickId: tag + '-' + index, patternId: tag, startedAt: at, finishedAt: at + 500, outcome: 'report-only',
    kind: 'reported', level: 'L1', itemsFound: 1, actionsTaken: 0, escalations: 0, tokens: 1, summary: '',
    findings: [{ severity: 'watch', summary: tag + ' finding ' + index }], waiting: [] });
}
`,
    );
    const count = 60;
    const bundle = await bundledChild(child);
    const children = ['alpha', 'beta'].map((tag) =>
      spawn(process.execPath, [bundle, '--', dir, tag, String(count)], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] }),
    );
    const exits = children.map(
      (process) =>
        new Promise<number | null>((done) => {
          let stderr = '';
          process.stderr.on('data', (data) => (stderr += String(data)));
          process.on('exit', (code) => {
            if (code !== 0) console.error(stderr);
            done(code);
          });
        }),
    );
    // Start both loops at the same moment so their writes really interleave.
    await Promise.all(children.map((process) => new Promise<void>((ready) => process.stdout.once('data', () => ready()))));
    for (const process of children) process.stdin.write('go\n');
    expect(await Promise.all(exits)).toEqual([0, 0]);

    const runs = parseRunLog(await readFile(join(dir, 'loop-run-log.md'), 'utf8'));
    expect(runs.filter((run) => run.pattern === 'alpha')).toHaveLength(count);
    expect(runs.filter((run) => run.pattern === 'beta')).toHaveLength(count);
    const ledger = new FileBudgetLedger({ root: dir });
    expect(await ledger.spentOn('2026-09-15', 'alpha')).toBe(count);
    expect(await ledger.spentOn('2026-09-15', 'beta')).toBe(count);
    const state = await readFile(join(dir, 'STATE.md'), 'utf8');
    expect(state).toContain(`- alpha finding ${count - 1}\n`);
    expect(state).toContain(`- beta finding ${count - 1}\n`);
    expect(state.match(/^<!-- loop-runtime:watch:(alpha|beta) -->$/gm)).toHaveLength(2);
    expect(outsideOwned(state)).toBe(outsideOwned(originals['daily-triage'] ?? ''));
  });
});
