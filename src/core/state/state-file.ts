/**
 * Updates a state file (STATE.md or a pattern starter's `<pattern>-state.md`)
 * after a tick, without destroying anything a human or another tool wrote.
 *
 * The runtime owns exactly:
 * - the `Last run:` line (added under the title when missing),
 * - the `Run log:` line (updated only when present),
 * - blocks between its own markers, `<!-- loop-runtime:<kind>:<pattern> -->`
 *   … `<!-- /loop-runtime:<kind>:<pattern> -->`, one per kind and pattern, so
 *   several patterns can share one STATE.md.
 * Every other byte is left as it was.
 */
import type { TickRecord } from '../ports/index.js';
import {
  type Line,
  type OwnedBlock,
  type ScannedLines,
  joinLines,
  markerLine,
  scanLines,
  sectionEnd,
  splitLines,
} from './markdown-lines.js';
import {
  HEADING_RULES,
  type HeadingRule,
  type OwnedBlockKind,
  isoSecond,
  mergeWaitingItems,
  noteTime,
  renderFinding,
  renderNote,
} from './state-blocks.js';
import { freshStateFile } from './state-template.js';

/** A one-line note (budget halt, kill switch). */
export interface StateNote {
  patternId: string;
  /** Epoch milliseconds. */
  at: number;
  line: string;
}

/** What to write: a finished tick, a note, or both. */
export interface StateUpdate {
  tick?: TickRecord;
  note?: StateNote;
}

export interface StateFileOptions {
  /** Project name for the title of a fresh STATE.md. */
  project?: string;
}

export { freshStateFile };

/**
 * Applies a tick and/or a note to a state file's text and returns the new text.
 *
 * A tick sets `Last run:` to its start time, merges its waiting-on-human items
 * into the waiting block (items a human ticked `- [x]` are dropped), replaces
 * the watch block with its findings, updates `Run log:`, and clears a note
 * older than the tick. A note replaces the pattern's note block.
 *
 * @example
 * ```ts
 * const next = updateStateFile(null, { tick: record }, { project: 'acme' });
 * // "# Loop State — acme\nLast run: 2026-09-15T08:00:39Z\n## High Priority …"
 * ```
 */
export function updateStateFile(text: string | null, update: StateUpdate, options: StateFileOptions = {}): string {
  let result = text ?? freshStateFile(options.project);
  const { tick, note } = update;
  if (tick) {
    result = setLastRun(result, isoSecond(tick.startedAt));
    result = upsertBlock(result, 'waiting', tick.patternId, (existing) => mergeWaitingItems(existing ?? [], tick.waiting));
    // A failed tick learned nothing new: the watch list stays, and the failure is the loop's note.
    const failed = tick.outcome === 'failed';
    // An interrupted tick did not finish looking either: the watch list stays too (its note follows).
    const learnedNothing = failed || tick.outcome === 'interrupted';
    result = upsertBlock(result, 'watch', tick.patternId, (existing) => (learnedNothing ? (existing ?? []) : tick.findings.map(renderFinding)));
    result = upsertBlock(result, 'note', tick.patternId, (existing) => {
      if (failed) return [renderNote(tick.patternId, tick.startedAt, `tick ${tick.tickId} failed (${tick.kind}): ${tick.summary}`)];
      const at = existing ? noteTime(existing) : null;
      return existing && at !== null && at >= Math.floor(tick.startedAt / 1000) * 1000 ? existing : [];
    });
    result = setRunLogLine(result, tick);
  }
  if (note) {
    result = upsertBlock(result, 'note', note.patternId, () => [renderNote(note.patternId, note.at, note.line)]);
  }
  return result;
}

export { hasPauseLine } from './pause-line.js';

function findOwnedLine(scanned: ScannedLines, pattern: RegExp, which: 'first' | 'last'): number {
  const indexes = scanned.lines.map((_, index) => index).filter((index) => scanned.context[index] === 'text');
  const ordered = which === 'first' ? indexes : indexes.reverse();
  return ordered.find((index) => pattern.test(scanned.lines[index]?.text ?? '')) ?? -1;
}

function setLastRun(text: string, iso: string): string {
  const scanned = scanLines(splitLines(text));
  const lines = scanned.lines;
  const index = findOwnedLine(scanned, /^\s*(?:[-*]\s+)?(?:\*\*)?Last run:/i, 'first');
  if (index >= 0) {
    const line = lines[index] as Line;
    line.text = line.text.replace(/Last run:(\*\*)?.*$/i, (_, bold: string | undefined) => `Last run:${bold ?? ''} ${iso}`);
    return joinLines(lines);
  }
  const title = scanned.headings.find((heading) => heading.level === 1);
  insertLines(lines, title ? title.index + 1 : 0, [`Last run: ${iso}`], scanned.eol);
  return joinLines(lines);
}

function setRunLogLine(text: string, tick: TickRecord): string {
  const scanned = scanLines(splitLines(text));
  const index = findOwnedLine(scanned, /^Run log:/i, 'last');
  if (index < 0) return text;
  const line = scanned.lines[index] as Line;
  line.text = `Run log: ${isoSecond(tick.startedAt)} | ${tick.itemsFound} findings | ${tick.actionsTaken} actions | ${tick.escalations} escalations`;
  return joinLines(scanned.lines);
}

function insertLines(lines: Line[], at: number, texts: readonly string[], eol: string): void {
  const previous = lines[at - 1];
  // Keep a file that ended without a newline ending without one.
  const keepUnterminated = previous !== undefined && previous.eol === '';
  if (previous && keepUnterminated) previous.eol = eol;
  const added = texts.map((lineText, offset) => ({
    text: lineText,
    eol: keepUnterminated && offset === texts.length - 1 ? '' : eol,
  }));
  lines.splice(at, 0, ...added);
}

/**
 * Replaces, inserts or removes one owned block. `render` gets the current
 * content lines (null when the block does not exist) and returns the new
 * content; an empty result removes the block.
 */
function upsertBlock(
  text: string,
  kind: OwnedBlockKind,
  patternId: string,
  render: (existing: string[] | null) => string[],
): string {
  const scanned = scanLines(splitLines(text));
  const { lines, eol } = scanned;
  const matching = scanned.blocks.filter((block) => block.kind === kind && block.patternId === patternId);
  const current = matching[0];
  const inner = current ? lines.slice(current.start + 1, current.end).map((line) => line.text) : null;
  const ownHeading = inner?.[0]?.startsWith('#') ? inner[0] : null;
  const content = render(ownHeading ? inner!.slice(1) : inner);

  // Remove duplicates first (from the bottom, so indexes stay valid).
  for (const block of [...matching].reverse()) lines.splice(block.start, block.end - block.start + 1);

  if (content.length === 0) return joinLines(lines);
  if (current) {
    const block = [markerLine(kind, patternId, false), ...(ownHeading ? [ownHeading] : []), ...content, markerLine(kind, patternId, true)];
    lines.splice(current.start, 0, ...block.map((lineText) => ({ text: lineText, eol })));
    return joinLines(lines);
  }
  const place = placeNewBlock(scanLines(lines), kind);
  const heading = place.heading ? [place.heading] : [];
  insertLines(lines, place.at, [markerLine(kind, patternId, false), ...heading, ...content, markerLine(kind, patternId, true)], eol);
  return joinLines(lines);
}

/** Where a new block goes: inside the first section whose heading fits, or a new section. */
function placeNewBlock(scanned: ScannedLines, kind: OwnedBlockKind): { at: number; heading: string | null } {
  if (kind === 'note') {
    const lastRun = findOwnedLine(scanned, /^\s*(?:[-*]\s+)?(?:\*\*)?Last run:/i, 'first');
    if (lastRun >= 0) return { at: lastRun + 1, heading: null };
    const title = scanned.headings.find((heading) => heading.level === 1);
    return { at: title ? title.index + 1 : 0, heading: null };
  }
  const rule: HeadingRule = HEADING_RULES[kind];
  const candidates = scanned.headings.filter((heading) => heading.level >= 2 && !rule.exclude.test(heading.title));
  for (const tier of rule.tiers) {
    const heading = candidates.find((candidate) => tier.test(candidate.title));
    if (!heading) continue;
    let at = sectionEnd(scanned, heading);
    while (at - 1 > heading.index && (scanned.lines[at - 1]?.text.trim() ?? '') === '') at -= 1;
    return { at, heading: null };
  }
  return { at: appendPoint(scanned), heading: rule.fallbackHeading };
}

/** New sections go before the `---` that precedes `Run log:`, else at the end. */
function appendPoint(scanned: ScannedLines): number {
  const runLog = findOwnedLine(scanned, /^Run log:/i, 'last');
  if (runLog < 0) return scanned.lines.length;
  let at = runLog;
  while (at - 1 >= 0 && (scanned.lines[at - 1]?.text.trim() ?? '') === '') at -= 1;
  if (/^\s*-{3,}\s*$/.test(scanned.lines[at - 1]?.text ?? '')) at -= 1;
  while (at - 1 >= 0 && (scanned.lines[at - 1]?.text.trim() ?? '') === '') at -= 1;
  return at;
}

export type { OwnedBlock };
