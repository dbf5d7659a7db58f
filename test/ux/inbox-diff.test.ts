/**
 * `inbox <id>` and `inbox --diff`: the change itself at the terminal (paths, the gate's decision, the patch), as
 * the console's inbox shows it — not only a worktree path to go and look at.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { cleanupTempDirs, makeRepo } from '../git-fixtures.js';
import { cliJson } from '../cli-json.js';

afterAll(cleanupTempDirs);

async function cli(cwd: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { cwd, env: { ...process.env, NO_COLOR: '1', CI: '' }, isTTY: false, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

const LOOP_MD = '---\nloop-runtime:\n  backend: mock\n  backendOptions:\n    targetPath: .env\n  verify:\n    - "true"\n  loops:\n    daily-triage: {}\n---\n# Loops\n';

describe('inbox <id> / inbox --diff', () => {
  it('shows the escalated change\'s paths, the gate\'s decision and its patch; an unknown id names the ids that wait', async () => {
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD });
    expect((await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'])).code).toBe(0);
    const listed = cliJson((await cli(root, ['inbox', '--json'])).stdout) as { items: Array<{ id: string }> };
    const id = listed.items[0]!.id;
    // The plain list names the change but shows no patch.
    expect((await cli(root, ['inbox'])).stdout).not.toContain('@@');

    const shown = await cli(root, ['inbox', id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(id);
    expect(shown.stdout).toContain('gate: escalates');
    expect(shown.stdout).toContain('paths: .env');
    expect(shown.stdout).toMatch(/^\+\+\+ b\/\.env$/m);
    expect((await cli(root, ['inbox', '--diff'])).stdout).toContain('+++ b/.env');
    const json = cliJson((await cli(root, ['inbox', id, '--json'])).stdout) as { items: Array<{ diff?: { paths: string[]; gate: { allowed: boolean } } }> };
    expect(json.items[0]?.diff).toMatchObject({ paths: ['.env'], gate: { allowed: false } });

    const unknown = await cli(root, ['inbox', 'no-such-change']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain(id);
  });
});
