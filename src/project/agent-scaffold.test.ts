import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scaffoldFolders } from './agent-scaffold.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function project(files: string[], folders: string[]): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'agent-scaffold-'));
  roots.push(root);
  for (const folder of folders) await mkdir(join(root, folder), { recursive: true });
  for (const file of files) await writeFile(join(root, file), '{}\n');
  return root;
}

describe('which agent a loop-init scaffold names', () => {
  it('a dot folder with skills/ inside; a bare settings folder does not count', async () => {
    expect(await scaffoldFolders(await project([], ['.codex/skills', '.claude']))).toEqual(['.codex']);
  });

  it('loop-init\'s opencode layout: opencode.json beside skills/ at the root — and neither alone', async () => {
    expect(await scaffoldFolders(await project(['opencode.json'], ['skills/loop-triage']))).toEqual(['opencode.json']);
    expect(await scaffoldFolders(await project(['opencode.json'], []))).toEqual([]);
    expect(await scaffoldFolders(await project([], ['skills/loop-triage']))).toEqual([]);
  });

  it('the folder loop-init wrote for its --tool (the most skills) comes first, whatever the table order', async () => {
    // loop-init --tool codex: the full set in .codex/skills, one skill in .claude/skills and .grok/skills.
    const codex = await project([], ['.codex/skills/ci-triage', '.codex/skills/minimal-fix', '.codex/skills/loop-budget', '.claude/skills/ci-triage', '.grok/skills/ci-triage']);
    expect((await scaffoldFolders(codex))[0]).toBe('.codex');
    const claude = await project([], ['.claude/skills/ci-triage', '.claude/skills/minimal-fix', '.codex/skills/ci-triage']);
    expect(await scaffoldFolders(claude)).toEqual(['.claude', '.codex']);
  });
});
