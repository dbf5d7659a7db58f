/**
 * What a probe's output means, by its `found` rule. Pure: the adapter runs
 * the command and hands the raw result here.
 *
 * - `found`: the probe saw work (items are extracted from JSON entries).
 * - `empty`: the probe ran fine and saw nothing.
 * - `unknown`: the probe could not tell (tool missing — exit 127/126 — not
 *   authenticated, timed out, killed, or output that does not parse). An
 *   unknown probe never ends a tick as a no-op: triage runs.
 */
import type { WorkItem } from '../ports/index.js';
import type { ProbeSpec } from '../plan/execution-plan.js';
import { redactSecrets } from '../security/redact-secrets.js';
import { ciFailureKeys } from './ci-failure-key.js';

export interface ProbeRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the process could not start or was killed. */
  signal?: string | null;
}

export type ProbeOutcome =
  | { status: 'found'; note: string; items: WorkItem[] }
  | { status: 'empty'; note: string }
  | { status: 'unknown'; note: string };

/** Exit codes the shell uses for "command not found" and "not executable". */
const MISSING_TOOL_EXITS = new Set([126, 127]);
const MAX_ITEMS = 20;
const MAX_DETAIL = 2_000;
/** A failing job's log tail (`logTail` on an entry) is kept apart from the 2,000-character detail cap. */
const MAX_LOG_TAIL = 24_000;

/**
 * Interprets one probe run.
 *
 * @example
 * ```ts
 * interpretProbe(probe, { exitCode: 0, stdout: '[]', stderr: '', timedOut: false }); // → { status: 'empty', … }
 * interpretProbe(probe, { exitCode: 127, stdout: '', stderr: 'gh: not found', timedOut: false }); // → { status: 'unknown', … }
 * ```
 */
export function interpretProbe(probe: ProbeSpec, run: ProbeRun): ProbeOutcome {
  const name = probe.name;
  if (run.timedOut) return { status: 'unknown', note: `${name}: unknown (timed out after ${Math.round(probe.timeoutMs / 1000)}s)` };
  if (run.exitCode === null) return { status: 'unknown', note: `${name}: unknown (killed by ${run.signal ?? 'a signal'})` };
  if (MISSING_TOOL_EXITS.has(run.exitCode)) {
    return { status: 'unknown', note: `${name}: unknown (a tool it needs is not installed or not runnable: exit ${run.exitCode}${tail(run.stderr)})` };
  }
  switch (probe.found) {
    case 'exit-zero':
      return run.exitCode === 0 ? { status: 'found', note: `${name}: found (exit 0)`, items: [] } : { status: 'empty', note: `${name}: nothing (exit ${run.exitCode})` };
    case 'non-empty': {
      if (run.exitCode !== 0) return { status: 'unknown', note: `${name}: unknown (exit ${run.exitCode}${tail(run.stderr)})` };
      const lines = run.stdout.split('\n').filter((line) => line.trim() !== '');
      return lines.length > 0 ? { status: 'found', note: `${name}: found ${lines.length} line(s)`, items: [] } : { status: 'empty', note: `${name}: nothing` };
    }
    case 'json-entries':
      return interpretJson(probe, run);
  }
}

function interpretJson(probe: ProbeSpec, run: ProbeRun): ProbeOutcome {
  const name = probe.name;
  const text = run.stdout.trim();
  if (text === '') {
    return run.exitCode === 0 ? { status: 'empty', note: `${name}: nothing` } : { status: 'unknown', note: `${name}: unknown (exit ${run.exitCode}${tail(run.stderr)})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { status: 'unknown', note: `${name}: unknown (output is not JSON${run.exitCode === 0 ? '' : `, exit ${run.exitCode}`})` };
  }
  // Some tools exit non-zero *because* they found something (npm outdated exits 1); an error object is not an entry.
  if (run.exitCode !== 0 && isRecord(value) && 'error' in value) {
    return { status: 'unknown', note: `${name}: unknown (exit ${run.exitCode}: the tool reported an error)` };
  }
  const entries = Array.isArray(value) ? value.map((entry, index) => [String(index), entry] as const) : isRecord(value) ? Object.entries(value) : null;
  if (entries === null) return { status: 'unknown', note: `${name}: unknown (JSON is neither an array nor an object)` };
  if (entries.length === 0) return { status: 'empty', note: `${name}: nothing` };
  const items = entries.slice(0, MAX_ITEMS).map(([key, entry]) => toWorkItem(name, Array.isArray(value) ? null : key, entry));
  return { status: 'found', note: `${name}: found ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}`, items };
}

/**
 * A WorkItem from one JSON entry: title/number/url when present. Everything
 * in it came from outside (issue titles, branch names), so it goes to agents
 * only as `untrustedDetail`, never as instructions.
 */
export function toWorkItem(probeName: string, objectKey: string | null, entry: unknown): WorkItem {
  if (isRecord(entry) && typeof entry.logTail === 'string') {
    // The log of a failing CI job: data from the run, never instructions; redacted, its last lines kept.
    const { logTail, ...rest } = entry;
    const item = toWorkItem(probeName, objectKey, rest);
    const log = redactSecrets(logTail.trimEnd());
    const tail = log.length > MAX_LOG_TAIL ? `…${log.slice(-MAX_LOG_TAIL)}` : log;
    return { ...item, untrustedDetail: `${item.untrustedDetail ?? ''}\n\nFailed job log (last lines, untrusted):\n${tail}` };
  }
  const record = isRecord(entry) ? entry : {};
  const number = pick(record, ['number', 'databaseId', 'id']);
  const url = typeof record.url === 'string' ? record.url : undefined;
  const title = pick(record, ['title', 'displayTitle', 'name']) ?? objectKey ?? (typeof entry === 'string' ? entry : probeName);
  const kind = url && /\/pull\/\d+/.test(url) ? 'pr' : url && /\/issues\/\d+/.test(url) ? 'issue' : url && /\/actions\/runs\/\d+/.test(url) ? 'ci-run' : probeName;
  const keys = kind === 'ci-run' ? ciRunKeys(record, number) : null;
  const key = keys ? keys.key : number !== undefined ? `${kind}#${number}` : `${probeName}:${objectKey ?? title}`;
  const detail = JSON.stringify(objectKey === null ? entry : { [objectKey]: entry });
  return {
    key: key.slice(0, 200),
    title: String(title).replace(/\s+/g, ' ').slice(0, 200),
    untrustedDetail: detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail,
    ...(keys?.formerKeys ? { formerKeys: keys.formerKeys } : {}),
  };
}

/**
 * A failing run with its workflow and branch (`gh run list --json workflowName,headBranch`) is keyed as the
 * `workflow_run` event keys it (ci-failure-key.ts); without them (a project's own probe) by its run, as before.
 */
function ciRunKeys(record: Record<string, unknown>, runId: string | undefined): Pick<WorkItem, 'key' | 'formerKeys'> | null {
  const workflow = pick(record, ['workflowName']);
  const branch = pick(record, ['headBranch']);
  return workflow !== undefined && branch !== undefined ? ciFailureKeys({ workflow, branch, runId }) : null;
}

function pick(record: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tail(stderr: string): string {
  const line = stderr.trim().split('\n').pop()?.trim();
  return line ? `: ${line.slice(0, 160)}` : '';
}
