/**
 * One vocabulary, through the built CLI: a rejected tick reads `rejected` in `run`, `status`, `history` and
 * `status --json` (the run log keeps the methodology's `report-only`, with our `state` beside it, which the real
 * `loop status --json` passes through), and a rehearsal's tokens read
 * "rehearsal: N tokens, not counted" in both `run` and `status`, while a loop whose own backend is the mock has
 * its spend counted in both.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliJson } from './cli-json.js';
import { runCli } from './e2e-fixtures.js';
import { cleanupTempDirs, makeRepo } from './git-fixtures.js';

afterAll(cleanupTempDirs);

const loopMd = (backend: string, verify: string) => `---\nloop-runtime:\n  backend: ${backend}\n  verify:\n    - "${verify}"\n  loops:\n    daily-triage: {}\n---\n# Loops\n`;
const FILES = { 'src/example.ts': 'export const answer = 42;\n' };
const count = (tokens: number) => tokens.toLocaleString('en-US');
type Run = { ticks: Array<{ kind: string; tokens: number }> };

describe('one vocabulary of tick states', () => {
  it.each([
    ['false', 'rejected', 'report-only'],
    ['true', 'proposed', 'fix-proposed'],
  ])('verify %s: the tick reads %s in run, status, history and status --json', async (verify, state, runLogOutcome) => {
    const root = await makeRepo({ ...FILES, 'LOOP.md': loopMd('mock', verify) });
    const run = await runCli(root, ['run', 'daily-triage', '--level', 'L2', '--json']);
    const tick = (cliJson(run.stdout) as Run).ticks[0]!;
    expect(tick.kind).toBe(state);
    const status = await runCli(root, ['status']);
    expect(status.stdout).toMatch(new RegExp(`· \\S+ ${state} ~${count(tick.tokens)} tokens(\\n|$)`));
    expect(status.stdout).not.toContain(runLogOutcome);
    const history = await runCli(root, ['history']);
    expect(history.stdout).toMatch(new RegExp(`daily-triage {2}${state} {2}${count(tick.tokens)} tokens`));
    const json = cliJson((await runCli(root, ['status', '--json'])).stdout) as { loops: Array<{ lastRuns: Array<{ outcome: string; state: string }> }> };
    expect(json.loops[0]!.lastRuns[0]).toMatchObject({ outcome: runLogOutcome, state });
    const records = cliJson((await runCli(root, ['history', '--json'])).stdout) as Array<{ outcome: string; state: string }>;
    expect(records[0]).toMatchObject({ outcome: runLogOutcome, state });
    // The real peer: loop-init's `loop status --json` passes our run-log line through — the methodology's outcome word
    // (its format knows only four) and, beside it, the state our CLI prints.
    const peer = await execa(join('node_modules', '.bin', 'loop'), ['status', root, '--json'], { reject: false });
    const recentRuns = (JSON.parse(peer.stdout) as { recentRuns: Array<Record<string, unknown>> }).recentRuns;
    expect(recentRuns[0]).toMatchObject({ pattern: 'daily-triage', outcome: runLogOutcome, state, tokens_estimate: tick.tokens });
  }, 120_000);

  it('a rehearsal (--backend mock for a loop of another agent): run and status say "rehearsal: N tokens, not counted"', async () => {
    const root = await makeRepo({ ...FILES, 'LOOP.md': loopMd('claude-code', 'true') });
    const run = await runCli(root, ['run', 'daily-triage', '--level', 'L2', '--backend', 'mock']);
    expect(run.code, run.stderr).toBe(0);
    const tokens = Number(/tick 1: .* — ([\d,]+) tokens/.exec(run.stdout)![1]!.replaceAll(',', ''));
    expect(run.stdout).toContain(`Budget: rehearsal: ${count(tokens)} tokens, not counted against the 100,000 tokens/day cap.`);
    expect(run.stdout).not.toContain('spent today');
    const status = await runCli(root, ['status']);
    expect(status.stdout).toContain(`0 / 100,000 tokens today ($0.00) (+ rehearsal: ${count(tokens)} tokens, not counted;`);
  }, 120_000);

  it('the twin: a loop whose own backend is the mock has its spend counted, in run and status alike', async () => {
    const root = await makeRepo({ ...FILES, 'LOOP.md': loopMd('mock', 'true') });
    const run = await runCli(root, ['run', 'daily-triage', '--level', 'L2']);
    const tokens = Number(/tick 1: .* — ([\d,]+) tokens/.exec(run.stdout)![1]!.replaceAll(',', ''));
    expect(run.stdout).toContain(`Budget: ${count(tokens)} / 100,000 tokens spent today (UTC).`);
    const status = await runCli(root, ['status']);
    expect(status.stdout).toMatch(new RegExp(`${count(tokens)} / 100,000 tokens today \\(\\$0\\.00\\)\\n`));
    expect(status.stdout).toContain('Prices: mock backend: no model is paid.');
    expect(status.stdout).not.toContain('rehearsal');
  }, 120_000);
});
