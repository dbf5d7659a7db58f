/**
 * Issue 24: the verification commands run at the base in the attempt's own worktree before the implementer. A
 * command that writes files there (a failure report, a rewritten snapshot) must not have them committed as part
 * of the fix under the implementer's summary: after the baseline the worktree is the base again.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from './git-fixtures.js';
import { both, NODE_FIX, NODE_REPO, perTestTick, replaceIn } from './per-test-fixtures.js';
import { createProcessRunner } from '../src/adapters/command-runner/process-runner.js';

afterAll(cleanupTempDirs);

/** Fixes both red tests, so the suite (and the command) is green after the change. */
const FIX_ALL = both(NODE_FIX, replaceIn('src/textutil.js', "text.split('=');", "text.split('=').map((part) => part.trim());"));

/** `npm test` that, while red, writes a report, rewrites a tracked file and logs the run outside the worktree. */
function repoWritingWhenRed(log: string): Record<string, string> {
  const run = [
    "const { spawnSync } = require('node:child_process');",
    "const { appendFileSync, writeFileSync } = require('node:fs');",
    "const result = spawnSync(process.execPath, ['--test'], { stdio: 'inherit' });",
    `appendFileSync(${JSON.stringify(log)}, result.status === 0 ? 'green\\n' : 'red\\n');`,
    "if (result.status !== 0) {",
    "  writeFileSync('generated.txt', 'failure report\\n');",
    "  writeFileSync('status.txt', 'red\\n');",
    '}',
    'process.exit(result.status);',
  ].join('\n');
  return {
    ...NODE_REPO,
    'package.json': `${JSON.stringify({ name: 'textutil', version: '1.0.0', scripts: { test: 'node run-tests.js' } }, null, 2)}\n`,
    'run-tests.js': `${run}\n`,
    'status.txt': 'unknown\n',
  };
}

describe('the worktree is the base again after the baseline run', () => {
  it('a file the baseline command wrote and a tracked file it rewrote are not in the commit; the fix is', async () => {
    const log = join(await tempDir('loop-baseline-log-'), 'runs.log');
    const tick = await perTestTick(repoWritingWhenRed(log), FIX_ALL, { runner: () => createProcessRunner(), verify: ['npm test'] });
    // The baseline really ran red (and so wrote both files), and verification after the fix ran green.
    expect(await readFile(log, 'utf8')).toBe('red\ngreen\n');
    expect(tick.result.kind).toBe('proposed');
    expect(tick.committed).toEqual(['src/textutil.js']);
  });
});
