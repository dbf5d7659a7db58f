/**
 * loop-run-log.md: a markdown header, a `## Format` block, `## Recent Runs`,
 * the marker `<!-- Loop appends below this line -->`, then one JSON object per
 * line. The canonical keys come first, in the methodology's order, so other
 * tools (`loop status`, the budget skill) read our lines; our extras follow.
 */
import type { TickRecord } from '../ports/index.js';
import { isoSecond } from './state-blocks.js';
import { parseTimestamp } from '../time/utc-time.js';
import type { RunLogEntry } from './run-log-schema.js';
import { tickState } from '../text/tick-state.js';

export type { RunLogEntry } from './run-log-schema.js';

export const RUN_LOG_MARKER = '<!-- Loop appends below this line -->';

export const RUN_LOG_OUTCOMES = ['no-op', 'report-only', 'fix-proposed', 'escalated'] as const;

/** One run-log entry as we write it. */
export interface RunLogLine {
  run_id: string;
  pattern: string;
  duration_s: number;
  items_found: number;
  actions_taken: number;
  escalations: number;
  tokens_estimate: number;
  /** One of the methodology's RUN_LOG_OUTCOMES, or `failed` / `interrupted` (no methodology word; never logged as a no-op). */
  outcome: (typeof RUN_LOG_OUTCOMES)[number] | 'failed' | 'interrupted';
  /**
   * The state our CLI prints for the line (tick-state.ts: `rejected`, `proposed`, `halted`…), written by
   * `formatRunLogLine` beside the methodology's `outcome`: that key keeps its four words (other tools and the budget
   * skill read them), and a peer such as `loop status --json` passes this key through with the line.
   */
  state?: string;
  tick_id?: string;
  level?: string;
  kind?: string;
  /** For `kind: level-change`: the level before, and why it changed. */
  level_from?: string;
  reason?: string;
  /** For `kind: halted`: the halt's full message; for `kind: resumed`: the halt that was cleared. */
  message?: string;
  /** For `kind: resumed`: who resumed the loop (`user@host`). */
  by?: string;
  /** For lines written by crash recovery: the commit and branch a tick left without a run-log line. */
  commit?: string;
  branch?: string;
  /** True on lines crash recovery wrote for a tick that was killed before its own line. */
  recovered?: boolean;
  /** The backend that ran the tick (`"mock"` marks a rehearsal `reset --mock` may remove). */
  backend?: string;
}

/** The fields a run-log entry may carry and their JSON types (RunLogEntrySchema says the same; a test holds them equal). */
const ENTRY_FIELD_TYPES: Readonly<Record<string, 'string' | 'number'>> = {
  run_id: 'string',
  pattern: 'string',
  duration_s: 'number',
  items_found: 'number',
  actions_taken: 'number',
  escalations: 'number',
  tokens_estimate: 'number',
  outcome: 'string',
  state: 'string',
  tick_id: 'string',
  level: 'string',
  kind: 'string',
  backend: 'string',
};

/**
 * RunLogEntrySchema's check without zod: `status` and the budget ledger read
 * every line of the log, and loading zod for it costs more than the reading.
 */
function isRunLogEntry(value: unknown): value is RunLogEntry {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  if (typeof record.run_id !== 'string') return false;
  return Object.entries(ENTRY_FIELD_TYPES).every(([key, type]) => !Object.hasOwn(record, key) || typeof record[key] === type);
}

const CANONICAL_KEYS = [
  'run_id',
  'pattern',
  'duration_s',
  'items_found',
  'actions_taken',
  'escalations',
  'tokens_estimate',
  'outcome',
  'state',
  'tick_id',
  'level',
  'kind',
  'level_from',
  'reason',
  'message',
  'by',
  'commit',
  'branch',
  'recovered',
  'backend',
] as const;

/** The run-log line for a finished tick (run_id is its start, second precision, UTC). */
export function runLogLineFromTick(record: TickRecord): RunLogLine {
  return {
    run_id: isoSecond(record.startedAt),
    pattern: record.patternId,
    duration_s: Math.max(0, Math.round((record.finishedAt - record.startedAt) / 1000)),
    items_found: record.itemsFound,
    actions_taken: record.actionsTaken,
    escalations: record.escalations,
    tokens_estimate: record.tokens,
    outcome: record.outcome,
    tick_id: record.tickId,
    level: record.level,
    kind: record.kind,
    // A halted tick's line says why, and the halt's message (the record's summary, redacted with it).
    ...(record.reason ? { reason: record.reason, message: record.summary } : {}),
  };
}

/** Serializes a line with the canonical keys first, in order, on one line; every line says its state (one vocabulary). */
export function formatRunLogLine(line: RunLogLine): string {
  const ordered: Record<string, unknown> = {};
  const stated: RunLogLine = { ...line, state: tickState(line) };
  for (const key of CANONICAL_KEYS) if (stated[key] !== undefined) ordered[key] = stated[key];
  return JSON.stringify(ordered);
}

/** A fresh run log, matching loop-init's template. */
export function freshRunLog(project = 'this project'): string {
  return [
    `# Loop Run Log — ${project}`,
    '',
    'Append one entry per run. Prune entries older than 30 days.',
    '',
    '## Format',
    '',
    '```json',
    '{',
    '  "run_id": "2026-06-09T08:15:00Z",',
    '  "pattern": "daily-triage",',
    '  "duration_s": 45,',
    '  "items_found": 4,',
    '  "actions_taken": 1,',
    '  "escalations": 0,',
    '  "tokens_estimate": 52000,',
    '  "outcome": "report-only | fix-proposed | escalated | no-op"',
    '}',
    '```',
    '',
    '## Recent Runs',
    '',
    RUN_LOG_MARKER,
    '',
  ].join('\n');
}

export interface AppendRunLogOptions {
  /** Epoch milliseconds; entries older than `pruneDays` before it are removed. */
  now: number;
  /** Default 30. */
  pruneDays?: number;
  /** Project name for the title of a fresh run log. */
  project?: string;
}

/** Parses a line as a run-log entry, or returns null for any other line. */
export function parseRunLogLine(line: string): RunLogEntry | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return null;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return isRunLogEntry(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Appends one line below the marker and prunes entries whose `run_id` is
 * older than `pruneDays`. Lines that are not JSON entries are never touched.
 *
 * @example
 * ```ts
 * const next = appendRunLogLine(text, runLogLineFromTick(record), { now: clock.now() });
 * ```
 */
export function appendRunLogLine(text: string | null, line: RunLogLine, options: AppendRunLogOptions): string {
  const source = text ?? freshRunLog(options.project);
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  const cutoff = options.now - (options.pruneDays ?? 30) * 86_400_000;
  const lines = source.split(/\r?\n/);
  const markerIndex = lines.findIndex((candidate) => candidate.trim() === RUN_LOG_MARKER);
  // A halt nobody resumed is never pruned: it is what keeps the loop stopped.
  const openHalts = openHaltLines(lines.slice(markerIndex + 1));
  const kept = lines.filter((candidate, index) => {
    if (index <= markerIndex) return true;
    const entry = parseRunLogLine(candidate);
    if (!entry || openHalts.has(index - markerIndex - 1)) return true;
    const at = parseTimestamp(entry.run_id);
    return Number.isNaN(at) || at >= cutoff;
  });
  // split() leaves one empty string after a final newline; drop it, then end with exactly our line.
  if (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  kept.push(formatRunLogLine(line), '');
  return kept.join(eol);
}

/** Every entry in the log (below the marker when there is one), oldest first. */
export function parseRunLog(text: string): RunLogEntry[] {
  const lines = text.split(/\r?\n/);
  const markerIndex = lines.findIndex((candidate) => candidate.trim() === RUN_LOG_MARKER);
  const entries: RunLogEntry[] = [];
  lines.forEach((candidate, index) => {
    if (index <= markerIndex) return;
    const entry = parseRunLogLine(candidate);
    if (entry) entries.push(entry);
  });
  return entries;
}

/** Indexes (into `lines`) of each loop's last `kind: halted` line when no `kind: resumed` line follows it. */
function openHaltLines(lines: readonly string[]): Set<number> {
  const last = new Map<string, { index: number; halted: boolean }>();
  lines.forEach((candidate, index) => {
    const entry = parseRunLogLine(candidate);
    if (!entry || entry.pattern === undefined) return;
    if (entry.kind === 'halted' || entry.kind === 'resumed') last.set(entry.pattern, { index, halted: entry.kind === 'halted' });
  });
  return new Set([...last.values()].filter((value) => value.halted).map((value) => value.index));
}

/** Run-log kinds that are not runs of the loop: decisions and retries outside a tick, precondition refusals, halted ticks. */
const NOT_RUNS: ReadonlySet<string> = new Set(['human-approved', 'human-rejected', 'level-change', 'delivery-retried', 'precondition-failed', 'resumed', 'halted-tick']);

/**
 * How many times `patternId` ran on the UTC day `day` (YYYY-MM-DD), from a
 * run log: every line of the loop — ours and those agents following the
 * methodology wrote — except decisions and retries outside a tick and ticks
 * refused by a precondition (which called no model). What `Max runs/day` in
 * loop-budget.md is held to.
 *
 * @example
 * ```ts
 * runsOnDay(runLogText, 'daily-triage', '2026-05-01'); // → 2
 * ```
 */
export function runsOnDay(text: string | null, patternId: string, day: string): number {
  if (!text) return 0;
  return parseRunLog(text).filter((entry) => entry.pattern === patternId && entry.run_id.slice(0, 10) === day && !NOT_RUNS.has(entry.kind ?? '')).length;
}
