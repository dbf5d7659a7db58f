/** Which agent a loop-init scaffold set the project up for, from the folders it leaves at the root. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AGENT_SCAFFOLD_FOLDERS, OPENCODE_ROOT_SCAFFOLD } from '../core/plan/agent-tools.js';
import { pathExists } from './project-files.js';

/**
 * The agent folders with a `skills/` folder inside (`.codex/skills`,
 * `.claude/skills`…), which loop-init writes for its `--tool`. A bare
 * `.claude/settings.json` does not count: it says the developer uses Claude
 * Code, not that the loops were scaffolded for it. loop-init's opencode layout
 * (`opencode.json` beside `skills/` at the root) counts as `opencode.json`;
 * either file alone does not. Ordered by the number of skills inside, most
 * first: the folder loop-init wrote for its `--tool`.
 */
export async function scaffoldFolders(root: string): Promise<string[]> {
  const found: Array<{ folder: string; skills: number }> = [];
  for (const folder of Object.keys(AGENT_SCAFFOLD_FOLDERS)) {
    const present = folder === OPENCODE_ROOT_SCAFFOLD
      ? (await pathExists(join(root, OPENCODE_ROOT_SCAFFOLD))) && (await pathExists(join(root, 'skills')))
      : await pathExists(join(root, folder, 'skills'));
    if (present) found.push({ folder, skills: await skillCount(join(root, folder === OPENCODE_ROOT_SCAFFOLD ? 'skills' : join(folder, 'skills'))) });
  }
  // loop-init writes its whole skill set for --tool and one skill into the other agents' folders: most skills first
  // (a --tool codex scaffold also has .claude/skills/ci-triage, and must not read as a Claude Code project).
  return found.sort((a, b) => b.skills - a.skills).map((entry) => entry.folder);
}

async function skillCount(directory: string): Promise<number> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).length;
}
