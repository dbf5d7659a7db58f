/** Which agent a loop-init scaffold set the project up for, from the folders it leaves at the root. */
import { join } from 'node:path';
import { AGENT_SCAFFOLD_FOLDERS, OPENCODE_ROOT_SCAFFOLD } from '../core/plan/agent-tools.js';
import { pathExists } from './project-files.js';

/**
 * The agent folders with a `skills/` folder inside (`.codex/skills`,
 * `.claude/skills`…), which loop-init writes for its `--tool`. A bare
 * `.claude/settings.json` does not count: it says the developer uses Claude
 * Code, not that the loops were scaffolded for it. loop-init's opencode layout
 * (`opencode.json` beside `skills/` at the root) counts as `opencode.json`;
 * either file alone does not.
 */
export async function scaffoldFolders(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const folder of Object.keys(AGENT_SCAFFOLD_FOLDERS)) {
    const present = folder === OPENCODE_ROOT_SCAFFOLD
      ? (await pathExists(join(root, OPENCODE_ROOT_SCAFFOLD))) && (await pathExists(join(root, 'skills')))
      : await pathExists(join(root, folder, 'skills'));
    if (present) found.push(folder);
  }
  return found;
}
