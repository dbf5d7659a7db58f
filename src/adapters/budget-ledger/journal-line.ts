/**
 * The spend journal's line format (`.loop-runtime/spend.jsonl`), one JSON
 * object a line:
 *
 * - v1 spend, still written by `record`: `{"at","day","patternId","tickId","phase","tokens","costUsd"}`
 * - `{"kind":"open","id","at","day","patternId","tickId","phase","reserved"}` — the reservation's full amount
 *   is under `reserved`, not `tokens`, so a v1 reader ignores opens instead of counting them twice
 * - `{"kind":"settle","id",…,"tokens","costUsd"}` and `{"kind":"reconcile","id",…,"tokens","reason"}` carry the
 *   v1 spend fields too: a v1 reader counts them as spend
 */
import type { AgentRole } from '../../core/ports/index.js';
import type { JournalEntry } from '../../core/budget/budget-journal.js';

/** `backend` is the backend the line was journalled for, when the writer said (`"mock"` marks rehearsal spend). */
export type ParsedLine = { kind: 'entry'; entry: JournalEntry; backend?: string } | { kind: 'skip' } | { kind: 'corrupt'; problem: string };

const ROLES: ReadonlySet<string> = new Set<AgentRole>(['triage', 'implement', 'check']);

/** One journal line; `backend` (when given) is written last, so v1 readers and older runtimes ignore it. */
export function formatJournalLine(entry: JournalEntry, backend?: string): string {
  const line = formatEntry(entry);
  return backend === undefined ? line : `${line.slice(0, -1)},"backend":${JSON.stringify(backend)}}`;
}

function formatEntry(entry: JournalEntry): string {
  const common = { day: entry.day, patternId: entry.patternId, tickId: entry.tickId, phase: entry.phase };
  switch (entry.kind) {
    case 'spend':
      return JSON.stringify({ at: entry.at, ...common, tokens: entry.tokens, costUsd: entry.costUsd });
    case 'open':
      return JSON.stringify({ kind: 'open', id: entry.id, at: entry.at, ...common, reserved: entry.tokens });
    case 'settle':
      return JSON.stringify({ kind: 'settle', id: entry.id, at: entry.at, ...common, tokens: entry.tokens, costUsd: entry.costUsd });
    case 'reconcile':
      return JSON.stringify({ kind: 'reconcile', id: entry.id, at: entry.at, ...common, tokens: entry.tokens, reason: entry.reason });
  }
}

/**
 * Parses one complete line. Blank lines and torn appends (the start of an
 * entry cut before its closing brace, what a crash mid-write leaves) are
 * skipped; anything else that is not an entry is corruption.
 */
export function parseJournalLine(line: string): ParsedLine {
  const parsed = parseEntry(line);
  if (parsed.kind !== 'entry') return parsed;
  const backend = backendOf(line);
  return backend === undefined ? parsed : { ...parsed, backend };
}

function backendOf(line: string): string | undefined {
  const value: unknown = JSON.parse(line.trim());
  if (typeof value !== 'object' || value === null || !('backend' in value)) return undefined;
  return typeof value.backend === 'string' ? value.backend : undefined;
}

function parseEntry(line: string): ParsedLine {
  const text = line.trim();
  if (text === '') return { kind: 'skip' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (text.startsWith('{"') && !text.endsWith('}')) return { kind: 'skip' };
    return { kind: 'corrupt', problem: 'not a JSON object' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'corrupt', problem: 'not a JSON object' };
  const record: Record<string, unknown> = { ...value };
  const kind = record.kind ?? 'spend';
  const missing = (field: string, type: string) => ({ kind: 'corrupt' as const, problem: `"${field}" must be a ${type}` });
  for (const field of ['day', 'patternId', 'tickId'] as const) if (typeof record[field] !== 'string') return missing(field, 'string');
  if (typeof record.at !== 'number' && !(kind === 'spend' && record.at === undefined)) return missing('at', 'number');
  if (typeof record.phase !== 'string' || !ROLES.has(record.phase)) return missing('phase', 'role (triage, implement or check)');
  const common = { at: typeof record.at === 'number' ? record.at : Number.NaN, day: String(record.day), patternId: String(record.patternId), tickId: String(record.tickId), phase: toRole(record.phase) };
  const costUsd = typeof record.costUsd === 'number' ? record.costUsd : null;
  if (kind !== 'spend' && typeof record.id !== 'string') return missing('id', 'string');
  const id = String(record.id);
  switch (kind) {
    case 'spend':
      if (typeof record.tokens !== 'number') return missing('tokens', 'number');
      return { kind: 'entry', entry: { kind: 'spend', ...common, tokens: record.tokens, costUsd } };
    case 'open':
      if (typeof record.reserved !== 'number') return missing('reserved', 'number');
      return { kind: 'entry', entry: { kind: 'open', id, ...common, tokens: record.reserved } };
    case 'settle':
      if (typeof record.tokens !== 'number') return missing('tokens', 'number');
      return { kind: 'entry', entry: { kind: 'settle', id, ...common, tokens: record.tokens, costUsd } };
    case 'reconcile':
      if (typeof record.tokens !== 'number') return missing('tokens', 'number');
      return { kind: 'entry', entry: { kind: 'reconcile', id, ...common, tokens: record.tokens, reason: typeof record.reason === 'string' ? record.reason : '' } };
    default:
      return { kind: 'corrupt', problem: `unknown entry kind ${JSON.stringify(kind)} (written by a newer loop-runtime?)` };
  }
}

function toRole(phase: string): AgentRole {
  return phase === 'implement' ? 'implement' : phase === 'check' ? 'check' : 'triage';
}
