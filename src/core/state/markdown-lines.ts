/**
 * A byte-preserving line model for markdown state files: every line keeps its
 * own terminator, so `joinLines(splitLines(text)) === text` for any input and
 * edits touch only the lines they mean to.
 */

export interface Line {
  text: string;
  /** "\n", "\r\n", or "" for a last line without a terminator. */
  eol: string;
}

/** Where a line sits, for the purpose of finding headings and markers. */
export type LineContext = 'text' | 'fence' | 'comment' | 'owned';

/** A region the runtime owns, delimited by `<!-- loop-runtime:<kind>:<pattern> -->` markers. */
export interface OwnedBlock {
  kind: string;
  patternId: string;
  /** Index of the opening marker line. */
  start: number;
  /** Index of the closing marker line (equal to `start` when the close marker is missing). */
  end: number;
}

export interface Heading {
  index: number;
  level: number;
  title: string;
}

export interface ScannedLines {
  lines: Line[];
  context: LineContext[];
  blocks: OwnedBlock[];
  /** Headings outside fences, comments and owned blocks. */
  headings: Heading[];
  /** The end-of-line used for new lines, taken from the file. */
  eol: string;
}

const MARKER = /^<!-- (\/?)loop-runtime:([a-z][a-z-]*):(\S+?) -->[ \t]*$/;
const FENCE = /^ {0,3}(```|~~~)/;
const HEADING = /^(#{1,6})[ \t]+(.*?)[ \t#]*$/;

/** Splits text into lines that keep their terminators. */
export function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  const pattern = /\r?\n/g;
  let start = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    lines.push({ text: text.slice(start, match.index), eol: match[0] });
    start = match.index + match[0].length;
  }
  if (start < text.length) lines.push({ text: text.slice(start), eol: '' });
  return lines;
}

export function joinLines(lines: readonly Line[]): string {
  return lines.map((line) => line.text + line.eol).join('');
}

/** The opening or closing marker line of an owned block. */
export function markerLine(kind: string, patternId: string, closing: boolean): string {
  return `<!-- ${closing ? '/' : ''}loop-runtime:${kind}:${patternId} -->`;
}

/** Classifies every line and finds owned blocks and headings. */
export function scanLines(lines: Line[]): ScannedLines {
  const context: LineContext[] = [];
  const blocks: OwnedBlock[] = [];
  const headings: Heading[] = [];
  let fence: string | null = null;
  let inComment = false;
  let open: { kind: string; patternId: string; start: number } | null = null;

  lines.forEach((line, index) => {
    const text = line.text;
    if (open) {
      const marker = MARKER.exec(text);
      context.push('owned');
      if (marker && marker[1] === '/' && marker[2] === open.kind && marker[3] === open.patternId) {
        blocks.push({ ...open, end: index });
        open = null;
      }
      return;
    }
    if (fence) {
      context.push('fence');
      if (text.trimStart().startsWith(fence)) fence = null;
      return;
    }
    if (inComment) {
      context.push('comment');
      if (text.includes('-->')) inComment = false;
      return;
    }
    const marker = MARKER.exec(text);
    if (marker && marker[2] && marker[3]) {
      context.push('owned');
      // A stray closing marker is treated as a one-line block so it gets cleaned up.
      if (marker[1] === '/') blocks.push({ kind: marker[2], patternId: marker[3], start: index, end: index });
      else open = { kind: marker[2], patternId: marker[3], start: index };
      return;
    }
    const fenceMatch = FENCE.exec(text);
    if (fenceMatch?.[1]) {
      fence = fenceMatch[1];
      context.push('fence');
      return;
    }
    const commentStart = text.indexOf('<!--');
    if (commentStart >= 0 && !text.includes('-->', commentStart + 4)) {
      inComment = true;
      context.push('comment');
      return;
    }
    context.push('text');
    const heading = HEADING.exec(text);
    if (heading?.[1]) headings.push({ index, level: heading[1].length, title: heading[2] ?? '' });
  });
  // An opening marker without its closing marker owns only its own line.
  if (open !== null) {
    const unclosed: { kind: string; patternId: string; start: number } = open;
    blocks.push({ ...unclosed, end: unclosed.start });
    for (let index = unclosed.start + 1; index < lines.length; index += 1) context[index] = 'text';
    const rescanned = scanLines(lines.slice(unclosed.start + 1));
    for (const heading of rescanned.headings) headings.push({ ...heading, index: heading.index + unclosed.start + 1 });
    for (const block of rescanned.blocks) {
      blocks.push({ ...block, start: block.start + unclosed.start + 1, end: block.end + unclosed.start + 1 });
    }
    rescanned.context.forEach((value, offset) => (context[unclosed.start + 1 + offset] = value));
  }
  const eol = lines.find((line) => line.eol !== '')?.eol ?? '\n';
  return { lines, context, blocks, headings, eol };
}

/** The index of the first line after the section that `heading` opens. */
export function sectionEnd(scanned: ScannedLines, heading: Heading): number {
  for (let index = heading.index + 1; index < scanned.lines.length; index += 1) {
    if (scanned.context[index] !== 'text') continue;
    const next = scanned.headings.find((candidate) => candidate.index === index);
    if (next && next.level <= heading.level) return index;
    if (/^ {0,3}(-{3,}|\*{3,}|_{3,})[ \t]*$/.test(scanned.lines[index]?.text ?? '')) return index;
  }
  return scanned.lines.length;
}

/** Makes text from untrusted sources safe to put on one line inside an owned block. */
export function sanitizeInline(text: string): string {
  return text
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/<!--/g, '&lt;!--')
    .replace(/-->/g, '--&gt;')
    .trim();
}
