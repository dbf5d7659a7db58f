/**
 * Three-way merges of the runtime's state files, for persisting state from
 * ephemeral runners that race. Pure text in, text out.
 *
 * - `jsonl` (spend journal, lease history) and `run-log` (the lines below
 *   the marker): a line is an entry. The result holds every entry either
 *   side has, minus entries one side deleted since the base (pruning), in
 *   time order (the budget ledger reads backwards and stops at the first
 *   older day, so order matters), each line once.
 * - `attempt-ledger` (loop-ledger.json): the same for its `attempts` array,
 *   identified without `iteration`, which is renumbered.
 * - `state-md` (STATE.md): whole-file. Only one side changed → that side;
 *   both → the one whose `Last run:` is later (ties: `prefer`).
 */
import { parseTimestamp } from '../time/utc-time.js';

export type MergeStrategy = 'jsonl' | 'run-log' | 'attempt-ledger' | 'state-md';

export interface MergeInput {
  base: string | null;
  local: string | null;
  remote: string | null;
  /** Which side wins a state-md conflict with equal `Last run:` (default "local"). */
  prefer?: 'local' | 'remote';
}

/**
 * @example
 * ```ts
 * mergeStateText('jsonl', { base: 'a\n', local: 'a\nb\n', remote: 'a\nc\n' }); // → 'a\nb\nc\n' (by time when lines carry one)
 * ```
 */
export function mergeStateText(strategy: MergeStrategy, input: MergeInput): string | null {
  const { base, local, remote } = input;
  if (local === null) return remote;
  if (remote === null || local === remote) return local;
  switch (strategy) {
    case 'jsonl':
      return joinEntries(mergeEntries(entryLines(base), entryLines(local), entryLines(remote)));
    case 'run-log':
      return mergeRunLog(base, local, remote);
    case 'attempt-ledger':
      return mergeAttemptLedger(base, local, remote);
    case 'state-md':
      return mergeWholeFile(input);
  }
}

function entryLines(text: string | null): string[] {
  return (text ?? '').split(/\r?\n/).filter((line) => line.trim() !== '');
}

function joinEntries(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** The time a line is about, for ordering: `at`, `run_id` or `startedAt`; null when it has none. */
export function lineTime(line: string): number | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    const value = JSON.parse(trimmed) as Record<string, unknown>;
    if (typeof value.at === 'number') return value.at;
    if (typeof value.run_id === 'string') {
      const parsed = parseTimestamp(value.run_id);
      if (!Number.isNaN(parsed)) return parsed;
    }
    if (typeof value.startedAt === 'number') return value.startedAt;
    return null;
  } catch {
    return null;
  }
}

/**
 * Merges two chronological entry lists against their common base: a
 * two-way merge by time (ties: local first), dropping entries the other side
 * deleted since the base, each identical entry once.
 */
export function mergeEntries(base: readonly string[], local: readonly string[], remote: readonly string[], identity: (line: string) => string = (line) => line.trim()): string[] {
  const baseSet = new Set(base.map(identity));
  const localSet = new Set(local.map(identity));
  const remoteSet = new Set(remote.map(identity));
  const keep = (line: string) => {
    const id = identity(line);
    return !(baseSet.has(id) && (!localSet.has(id) || !remoteSet.has(id)));
  };
  const timed = (lines: readonly string[]) => {
    let previous = Number.NEGATIVE_INFINITY;
    return lines.filter(keep).map((line) => {
      const time = lineTime(line);
      if (time !== null) previous = time;
      return { line, time: time ?? previous };
    });
  };
  const a = timed(local);
  const b = timed(remote);
  const result: string[] = [];
  const seen = new Set<string>();
  const push = (line: string) => {
    const id = identity(line);
    if (seen.has(id)) return;
    seen.add(id);
    result.push(line);
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.time <= b[j]!.time)) push(a[i++]!.line);
    else push(b[j++]!.line);
  }
  return result;
}

const RUN_LOG_MARKER = '<!-- Loop appends below this line -->';

function mergeRunLog(base: string | null, local: string, remote: string): string {
  const split = (text: string | null) => {
    if (text === null) return { head: null, entries: [] as string[] };
    const lines = text.split(/\r?\n/);
    const marker = lines.findIndex((line) => line.trim() === RUN_LOG_MARKER);
    if (marker === -1) return { head: null, entries: lines.filter((line) => line.trim().startsWith('{')) };
    return { head: lines.slice(0, marker + 1).join('\n'), entries: lines.slice(marker + 1).filter((line) => line.trim() !== '') };
  };
  const [b, l, r] = [split(base), split(local), split(remote)];
  const head = l.head ?? r.head;
  const entries = mergeEntries(b.entries, l.entries, r.entries);
  const eol = local.includes('\r\n') ? '\r\n' : '\n';
  const body = entries.length ? `${entries.join(eol)}${eol}` : '';
  return head === null ? body : `${head.split('\n').join(eol)}${eol}${body}`;
}

interface LedgerShape {
  attempts?: unknown[];
  [key: string]: unknown;
}

function mergeAttemptLedger(base: string | null, local: string, remote: string): string {
  const parse = (text: string | null): LedgerShape | null => {
    if (text === null) return null;
    try {
      const value = JSON.parse(text) as unknown;
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as LedgerShape) : null;
    } catch {
      return null;
    }
  };
  const [b, l, r] = [parse(base), parse(local), parse(remote)];
  if (!l) return r ? remote : local;
  if (!r) return local;
  const lines = (ledger: LedgerShape | null) => (Array.isArray(ledger?.attempts) ? ledger.attempts.map((attempt) => JSON.stringify(attempt)) : []);
  const identity = (line: string) => {
    try {
      const { iteration: _iteration, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return JSON.stringify(rest);
    } catch {
      return line;
    }
  };
  const merged = mergeEntries(lines(b), lines(l), lines(r), identity).map((line, index) => {
    const attempt = JSON.parse(line) as Record<string, unknown>;
    return 'iteration' in attempt ? { ...attempt, iteration: index + 1 } : attempt;
  });
  const indent = /^\{\n(\s+)/.exec(local)?.[1]?.length ?? 2;
  return `${JSON.stringify({ ...r, ...l, attempts: merged }, null, indent)}\n`;
}

function mergeWholeFile({ base, local, remote, prefer = 'local' }: MergeInput): string | null {
  if (remote === base) return local;
  if (local === base) return remote;
  const localRun = lastRunOf(local);
  const remoteRun = lastRunOf(remote);
  if (localRun !== remoteRun && localRun !== null && remoteRun !== null) return localRun > remoteRun ? local : remote;
  if (localRun === null && remoteRun !== null) return remote;
  if (remoteRun === null && localRun !== null) return local;
  return prefer === 'local' ? local : remote;
}

/** Epoch ms of a state file's `Last run:` line, or null. */
export function lastRunOf(text: string | null): number | null {
  const match = /^Last run:\s*(\S+)/m.exec(text ?? '');
  if (!match) return null;
  const parsed = parseTimestamp(match[1]!);
  return Number.isNaN(parsed) ? null : parsed;
}
