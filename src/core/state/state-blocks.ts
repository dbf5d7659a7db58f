/**
 * What goes inside the blocks the runtime owns in a state file, and which
 * headings a block may live under. Pure string work, no I/O.
 */
import type { Finding, TickRecord } from '../ports/index.js';
import { sanitizeInline } from './markdown-lines.js';
import { parseTimestamp, toIsoString } from '../time/utc-time.js';

export type OwnedBlockKind = 'waiting' | 'watch' | 'note';

/**
 * Headings a block fits under, in priority order: every section is tried
 * against the first tier before any is tried against the second. `exclude`
 * keeps human-edited configuration sections (denylists, overrides) and
 * history sections out of reach.
 */
export interface HeadingRule {
  tiers: readonly RegExp[];
  exclude: RegExp;
  /** The heading of the section appended when no heading fits. */
  fallbackHeading: string;
}

const NEVER_TOUCH = /denylist|allowlist|edit these|override|resolved|completed|published|critique|scan window|labels/i;

export const HEADING_RULES: Readonly<Record<Exclude<OwnedBlockKind, 'note'>, HeadingRule>> = {
  waiting: {
    tiers: [/high priority|escalat|human (required|decision)|needs human|deferred/i, /active failures|in-flight|pending/i],
    exclude: NEVER_TOUCH,
    fallbackHeading: '## High Priority (loop is acting or waiting on human)',
  },
  watch: {
    tiers: [/\bwatch(ed)?\b/i, /findings|in-flight|pending|top \d+|recent/i],
    exclude: new RegExp(`${NEVER_TOUCH.source}|manifests|noise`, 'i'),
    fallbackHeading: '## Watch List',
  },
};

export type WaitingItem = TickRecord['waiting'][number];

interface ParsedWaitingItem {
  key: string;
  checked: boolean;
  lines: string[];
}

/**
 * Reads the items of an existing waiting block. Unchecked items stay until a
 * human ticks them (`- [x]`) or a newer tick reports the same key.
 */
export function parseWaitingItems(contentLines: readonly string[]): ParsedWaitingItem[] {
  const items: ParsedWaitingItem[] = [];
  for (const line of contentLines) {
    const start = /^[-*] \[( |x|X)\] (.*?)(?: — .*)?$/.exec(line);
    if (start) {
      items.push({ key: (start[2] ?? '').trim(), checked: start[1] !== ' ', lines: [line] });
      continue;
    }
    const last = items[items.length - 1];
    if (last && /^\s+\S/.test(line)) last.lines.push(line);
  }
  return items;
}

/** The lines of one waiting-on-human item, in the reference format. */
export function renderWaitingItem(item: WaitingItem): string[] {
  return [
    `- [ ] ${sanitizeInline(item.itemKey)} — ${sanitizeInline(item.title)}`,
    `  Loop action: ${sanitizeInline(item.loopAction)}`,
    `  Human decision: ${sanitizeInline(item.humanDecision)}`,
  ];
}

/** Merges this tick's waiting items into the block's current content. */
export function mergeWaitingItems(existing: readonly string[], waiting: readonly WaitingItem[]): string[] {
  const fresh = new Map(waiting.map((item) => [sanitizeInline(item.itemKey), item]));
  const lines: string[] = [];
  for (const item of parseWaitingItems(existing)) {
    if (item.checked) continue;
    const update = fresh.get(item.key);
    if (update) {
      lines.push(...renderWaitingItem(update));
      fresh.delete(item.key);
    } else {
      lines.push(...item.lines);
    }
  }
  for (const item of fresh.values()) lines.push(...renderWaitingItem(item));
  return lines;
}

/** One finding as a list line: `- key — summary (high)`. */
export function renderFinding(finding: Finding): string {
  const key = finding.itemKey ? `${sanitizeInline(finding.itemKey)} — ` : '';
  const severity = finding.severity === 'watch' ? '' : ` (${finding.severity})`;
  return `- ${key}${sanitizeInline(finding.summary)}${severity}`;
}

/** A one-line note stamped with its time so a later tick can tell it is stale. */
export function renderNote(patternId: string, at: number, line: string): string {
  return `**Note** ${isoSecond(at)} (${sanitizeInline(patternId)}): ${sanitizeInline(line)}`;
}

/** Reads the time a note block was written, or null. */
export function noteTime(contentLines: readonly string[]): number | null {
  for (const line of contentLines) {
    const match = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/.exec(line);
    if (match) return parseTimestamp(match[0]);
  }
  return null;
}

/** ISO-8601 UTC at second precision: `2026-09-15T08:00:39Z`. */
export function isoSecond(epochMs: number): string {
  return toIsoString(Math.floor(epochMs / 1000) * 1000).replace('.000Z', 'Z');
}
