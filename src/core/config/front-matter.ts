/**
 * Front matter without a YAML parser: finding the block is string work, so
 * callers that only need to know whether there is one (or the body after it)
 * do not load yaml and zod.
 */
export interface FrontMatterSplit {
  /** The YAML between the fences, or null when there is no front matter. */
  yaml: string | null;
  body: string;
  /** 1-based line of the closing fence; 0 when unclosed or absent. */
  closingLine: number;
}

/**
 * Splits a leading `---` … `---` (or `...`) block off a markdown text.
 *
 * @example
 * ```ts
 * splitFrontMatter('---\na: 1\n---\n# Title\n'); // → { yaml: 'a: 1\n', body: '# Title\n', closingLine: 3 }
 * ```
 */
export function splitFrontMatter(text: string): FrontMatterSplit {
  const normalized = text.replace(/^\uFEFF/, '');
  const lines = normalized.split(/\r?\n/);
  if ((lines[0] ?? '').trimEnd() !== '---') return { yaml: null, body: normalized, closingLine: 0 };
  for (let index = 1; index < lines.length; index += 1) {
    const line = (lines[index] ?? '').trimEnd();
    if (line === '---' || line === '...') {
      return {
        yaml: lines.slice(1, index).join('\n') + '\n',
        body: lines.slice(index + 1).join('\n').replace(/^\n+/, ''),
        closingLine: index + 1,
      };
    }
  }
  return { yaml: lines.slice(1).join('\n'), body: '', closingLine: 0 };
}
