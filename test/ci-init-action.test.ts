/** `loop-runtime ci init --action` through the built CLI (`npm run build` first), in a real repository. */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateWorkflow } from '@action-validator/core';
import { actionlint } from './ci/actionlint.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CHECKOUT, GIT_IDENTITY } from './ci/scratch-project.js';

let root: string;
const SHA = '0123456789abcdef0123456789abcdef01234567';

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(CHECKOUT, 'bin', 'loop-runtime.js'), ...args], { cwd: root, env: { ...process.env, ...GIT_IDENTITY, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ci-init-action-'));
  await new Promise((resolve, reject) => execFile('git', ['init', '--quiet', '--initial-branch=main'], { cwd: root }, (error) => (error ? reject(error) : resolve(null))));
  await new Promise((resolve, reject) => execFile(join(CHECKOUT, 'node_modules', '.bin', 'loop-init'), [root, '--pattern', 'daily-triage', '--tool', 'claude'], { cwd: root }, (error) => (error ? reject(error) : resolve(null))));
  const loopMd = await readFile(join(root, 'LOOP.md'), 'utf8');
  await writeFile(join(root, 'LOOP.md'), `---\nloop-runtime:\n  loops:\n    daily-triage: { backend: mock }\n---\n${loopMd}`);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('ci init --action', () => {
  it('refuses a ref that is not a 40-hex commit, naming the fix', async () => {
    const result = await cli('ci', 'init', '--action', '--action-ref', 'acme/loop-runtime@v1');
    expect(result.code).toBe(3);
    expect(`${result.stdout}${result.stderr}`).toContain('is not an Action pinned to a commit');
    expect(`${result.stdout}${result.stderr}`).toContain('<owner>/<repo>@<40-hex commit sha>');
  });

  it('with a pinned ref writes a valid workflow using it; without one, a placeholder it says to replace', async () => {
    const pinned = await cli('ci', 'init', '--action', '--action-ref', `acme/loop-runtime@${SHA}`);
    expect(pinned.code, pinned.stderr).toBe(0);
    const written = await readFile(join(root, '.github', 'workflows', 'loop-runtime.yml'), 'utf8');
    expect(validateWorkflow(written).errors).toEqual([]);
    expect(await actionlint(written)).toEqual([]);
    expect(written).toContain(`uses: acme/loop-runtime@${SHA}`);
    const placeholder = await cli('ci', 'init', '--action', '--force');
    expect(placeholder.code).toBe(0);
    expect(placeholder.stdout).toContain('The Action is a placeholder (OWNER/loop-runtime@REPLACE-WITH-A-40-HEX-COMMIT-SHA)');
    expect(await readFile(join(root, '.github', 'workflows', 'loop-runtime.yml'), 'utf8')).toContain('uses: OWNER/loop-runtime@REPLACE-WITH-A-40-HEX-COMMIT-SHA');
  });

  it("wires ci-sweeper to the failed runs of the repository's own workflows, by name; the workflow validates", async () => {
    const loopMd = await readFile(join(root, 'LOOP.md'), 'utf8');
    await writeFile(join(root, 'LOOP.md'), loopMd.replace('    daily-triage: { backend: mock }\n', '    daily-triage: { backend: mock }\n    ci-sweeper: { backend: mock }\n'));
    await mkdir(join(root, '.github', 'workflows'), { recursive: true });
    await writeFile(join(root, '.github', 'workflows', 'build.yml'), 'name: Build and test\non: push\njobs: { test: { runs-on: ubuntu-latest, steps: [{ run: npm test }] } }\n');
    const result = await cli('ci', 'init', '--action', '--force', '--action-ref', `acme/loop-runtime@${SHA}`);
    expect(result.code, result.stderr).toBe(0);
    const written = await readFile(join(root, '.github', 'workflows', 'loop-runtime.yml'), 'utf8');
    expect(validateWorkflow(written).errors).toEqual([]);
    expect(await actionlint(written)).toEqual([]);
    const workflow = parse(written) as { on: { workflow_run?: unknown }; jobs: Record<string, { if: string }> };
    expect(workflow.on.workflow_run).toEqual({ workflows: ['Build and test'], types: ['completed'] });
    expect(workflow.jobs['ci-sweeper']!.if).toContain("github.event.workflow_run.conclusion == 'failure'");
    expect(workflow.jobs['daily-triage']!.if).not.toContain('workflow_run');
  });
});
