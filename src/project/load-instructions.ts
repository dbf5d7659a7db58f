/**
 * The documents an agent reads for one loop: the pattern document, LOOP.md
 * prose (front matter removed), per-loop LOOP.md prose, AGENTS.md,
 * CLAUDE.md, and the SKILL.md of each of the pattern's skills from wherever
 * loop-init put them for the chosen tool.
 */
import { join } from 'node:path';
import { splitFrontMatter } from '../core/config/front-matter.js';
import type { InstructionDocument } from '../core/ports/index.js';
import type { LoadedProject } from './load-project.js';
import { readOptionalText } from './project-files.js';

/** Skill directories in preference order (.claude first); `skills/` is loop-init's opencode layout. */
export const SKILL_ROOTS = ['.claude/skills', '.codex/skills', '.grok/skills', '.opencode/skills', 'skills'] as const;

/**
 * Loads the instruction documents for a loop, skipping files that do not exist.
 * Each skill appears once (the first root that has it wins).
 *
 * @example
 * ```ts
 * const documents = await loadInstructions(project, 'daily-triage');
 * documents.map((document) => document.name);
 * // → ['patterns/daily-triage.md', 'LOOP.md', 'AGENTS.md', '.claude/skills/loop-triage/SKILL.md']
 * ```
 */
export async function loadInstructions(project: LoadedProject, patternId: string): Promise<InstructionDocument[]> {
  const pattern = project.patterns.find((candidate) => candidate.id === patternId);
  if (!pattern) return [];
  const documents: InstructionDocument[] = [];
  const add = (name: string, text: string | null) => {
    if (text !== null && text.trim() !== '') documents.push({ name, text });
  };

  const documentName = `patterns/${pattern.file}`;
  add(documentName, (await readOptionalText(join(project.root, documentName))) ?? (await readOptionalText(join(project.packageRoot, documentName))));

  for (const name of ['LOOP.md', `loops/${patternId}/LOOP.md`]) {
    const text = await readOptionalText(join(project.root, name));
    add(name, text === null ? null : splitFrontMatter(text).body);
  }
  for (const name of ['AGENTS.md', 'CLAUDE.md']) add(name, await readOptionalText(join(project.root, name)));

  for (const skill of new Set(pattern.skills)) {
    for (const skillRoot of SKILL_ROOTS) {
      const name = `${skillRoot}/${skill}/SKILL.md`;
      const text = await readOptionalText(join(project.root, name));
      if (text === null) continue;
      add(name, text);
      break;
    }
  }
  return documents;
}
