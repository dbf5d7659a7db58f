/**
 * Rehearsals stay rehearsals: `--backend mock` outside a dry run writes real
 * state (so the one-open-proposal rule and `status` work as for a real run),
 * but its ticks and changes count for no metric and no autonomy decision, and
 * `reset <id> --mock` gives every tracked file back byte for byte.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { cleanupTempDirs, makeRepo, sh } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

async function cli(cwd: string, argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const code = await main(argv, { cwd, env: { ...process.env, NO_COLOR: '1', CI: '' }, isTTY: false, stdout: (text) => (stdout += text), stderr: () => undefined });
  return { code, stdout };
}

const STATE = '# Loop State — demo\nLast run: never\n\n## High Priority (loop is acting or waiting on human)\n\n## Watch List\n\n---\nRun log: —';
const RUN_LOG = '# Loop Run Log\n\n## Recent Runs\n\n<!-- Loop appends below this line -->';
const LOOP_MD = '---\nloop-runtime:\n  verify:\n    - "true"\n  loops:\n    daily-triage: {}\n---\n# Loops\n';
const files = { 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD, 'STATE.md': STATE, 'loop-run-log.md': RUN_LOG };

describe('rehearsals (--backend mock outside a dry run)', () => {
  it('a mock proposal is followed (not proposed twice) but counts in no metric, and reset --mock leaves git status empty', async () => {
    const root = await makeRepo(files);
    const run = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--backend', 'mock', '--ticks', '2', '--json']);
    expect((cliJson(run.stdout) as { ticks: Array<{ kind: string }> }).ticks.map((tick) => tick.kind)).toEqual(['proposed', 'report']);
    const outcomes = await readFile(join(root, '.loop-runtime', 'outcomes.jsonl'), 'utf8');
    expect(outcomes).toContain('"backend":"mock"');
    const metrics = cliJson((await cli(root, ['metrics', 'daily-triage', '--json'])).stdout) as { loops: Array<{ ticks: { total: number }; changes: { proposed: number } }> };
    expect(metrics.loops[0]).toMatchObject({ ticks: { total: 0 }, changes: { proposed: 0 } });
    expect(sh(root, ['status', '--porcelain'])).not.toBe('');

    const reset = await cli(root, ['reset', 'daily-triage', '--mock', '--json']);
    expect(reset.code).toBe(0);
    expect(cliJson(reset.stdout)).toMatchObject({ restored: ['STATE.md', 'loop-run-log.md', 'loop-ledger.json'], outcomes: 1 });
    expect(sh(root, ['status', '--porcelain', '--untracked-files=all'])).toBe('');
    expect(sh(root, ['branch', '--list', 'loop/*'])).toBe('');
    expect(await readFile(join(root, '.loop-runtime', 'outcomes.jsonl'), 'utf8')).not.toContain('"backend":"mock"');
  });

  it('the twin: a human\'s edit after the rehearsal is kept; only the mock\'s own lines and blocks go', async () => {
    const root = await makeRepo(files);
    await cli(root, ['run', 'daily-triage', '--level', 'L2', '--backend', 'mock', '--json']);
    const edited = `${await readFile(join(root, 'STATE.md'), 'utf8')}\n\nA note a human wrote after the rehearsal.\n`;
    await writeFile(join(root, 'STATE.md'), edited);
    const reset = cliJson((await cli(root, ['reset', 'daily-triage', '--mock', '--json'])).stdout) as { restored: string[] };
    expect(reset.restored).not.toContain('STATE.md');
    expect(reset.restored).toContain('loop-run-log.md');
    expect(await readFile(join(root, 'STATE.md'), 'utf8')).toContain('A note a human wrote after the rehearsal.');
    expect(await readFile(join(root, 'loop-run-log.md'), 'utf8')).toBe(RUN_LOG);
  });
});
