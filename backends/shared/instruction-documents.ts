/**
 * Which parts of the loop's instruction documents a model call needs. Every
 * byte here is sent on every model call of every role, so what the runtime
 * itself enforces (kill switch, early exit, levels) and what is for the human
 * choosing a pattern (when to use it) is left out, and a document that repeats
 * an earlier one word for word (CLAUDE.md kept as a copy of AGENTS.md) is sent
 * once. Measured with `npm run bench` (scripts/bench-tokens.js).
 */
import type { InstructionDocument } from '../../src/core/ports/index.js';

/** Sections of a catalogue pattern document that the runtime enforces or that address the operator, not the agent. */
export const OPERATOR_SECTIONS: readonly string[] = ['When to use it', 'Early exit', 'Kill switch', 'Levels'];

const PATTERN_DOCUMENT = /^patterns\/[^/]+\.md$/;

/**
 * Removes `## <heading>` sections named in `headings` (up to the next `## ` or `# ` heading).
 *
 * @example
 * ```ts
 * withoutSections('# P\n\n## Goal\n\nG\n\n## Levels\n\nL1\n', ['Levels']); // → '# P\n\n## Goal\n\nG\n'
 * ```
 */
export function withoutSections(markdown: string, headings: readonly string[]): string {
  const drop = new Set(headings.map((heading) => heading.toLowerCase()));
  const kept: string[] = [];
  let skipping = false;
  for (const line of markdown.split('\n')) {
    const heading = /^(#{1,2}) (.+?)\s*$/.exec(line);
    if (heading) skipping = heading[1] === '##' && drop.has(heading[2]!.toLowerCase());
    if (!skipping) kept.push(line);
  }
  return `${kept.join('\n').trimEnd()}\n`;
}

/**
 * The documents as a model call gets them: pattern documents without their operator sections, and each
 * text once (a later document whose text equals an earlier one is dropped).
 *
 * @example
 * ```ts
 * agentInstructions([{ name: 'AGENTS.md', text: 'Run npm test.' }, { name: 'CLAUDE.md', text: 'Run npm test.\n' }]);
 * // → [{ name: 'AGENTS.md', text: 'Run npm test.' }]
 * ```
 */
export function agentInstructions(documents: readonly InstructionDocument[]): InstructionDocument[] {
  const seen = new Set<string>();
  const kept: InstructionDocument[] = [];
  for (const document of documents) {
    const text = PATTERN_DOCUMENT.test(document.name) ? withoutSections(document.text, OPERATOR_SECTIONS) : document.text;
    const key = text.trim();
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    kept.push({ ...document, text });
  }
  return kept;
}
