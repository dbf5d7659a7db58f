/** Which agent a loop-init scaffold set the project up for, from the folders it leaves at the root. */
import { join } from 'node:path';
import { AGENT_SCAFFOLD_FOLDERS } from '../core/plan/agent-tools.js';
import { pathExists } from './project-files.js';

/**
 * The agent folders with a `skills/` folder inside (`.codex/skills`,
 * `.claude/skills`…), which loop-init writes for its `--tool`. A bare
 * `.claude/settings.json` does not count: it says the developer uses Claude
 * Code, not that the loops were scaffolded for it.
 */
export async function scaffoldFolders(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const folder of Object.keys(AGENT_SCAFFOLD_FOLDERS)) {
    if (await pathExists(join(root, folder, 'skills'))) found.push(folder);
  }
  return found;
}
