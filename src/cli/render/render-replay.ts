/**
 * Human rendering of `replay` and `test`: the facts that changed first
 * (outcome, decision, verdict, gate), then the port calls that no longer line
 * up, then the configuration changes that explain them.
 */
import pc from 'picocolors';
import { shortJson } from '../../core/replay/json-differences.js';
import type { ReplayReport } from '../../use-cases/replay.js';
import type { RecordingTestSummary } from '../../use-cases/test-recordings.js';
import type { CallDifference } from '../../replay/world-ports.js';

const value = (entry: string | number | null) => {
  const text = entry === null ? '—' : String(entry);
  return text.length > 110 ? `${text.slice(0, 109)}…` : text;
};

const isEpochMs = (entry: unknown): boolean => typeof entry === 'number' && entry > 1e12;

/** One line per call difference. */
export function renderCallDifference(difference: CallDifference): string {
  switch (difference.kind) {
    case 'unexpected':
      return `diverged at call ${difference.call}: ${difference.expected ? `expected ${difference.expected} (recorded call ${difference.expectedIndex})` : 'the recording had nothing left'}, engine asked ${difference.asked}${difference.answered === 'void' ? ' — answered with nothing (it returns nothing)' : ' — no recorded answer, the replay stopped'}`;
    case 'arguments':
      return `call ${difference.call}: ${difference.method} asked with different arguments at ${difference.path}: ${shortJson(difference.recorded, 60)} → ${shortJson(difference.now, 60)} (answered from recorded call ${difference.index})`;
    case 'not-asked':
      return `recorded call ${difference.index} ${difference.method} was not asked`;
  }
}

/** The full report of one replay. */
export function renderReplay(report: ReplayReport): string {
  const lines = [`${pc.bold(report.file)}: ${report.loop}, recorded ${report.recordedAt} with ${report.backend}; replayed under the ${report.configuration} configuration`];
  const changed = new Map(report.facts.map((fact) => [fact.fact, fact]));
  const facts: Array<[string, string, string | number | null]> = [
    ['outcome', 'kind', report.recorded.kind],
    ['decision', 'decision', report.recorded.decision],
    ['verdict', 'verdict', report.recorded.verdict],
    ['gate', 'gate', report.recorded.gate],
    ['item', 'item', report.recorded.item],
    ['changes', 'changes', report.recorded.changes],
    ['reason', 'reason', report.recorded.reason],
    ['tokens', 'tokens', report.recorded.tokens],
  ];
  for (const [label, key, recorded] of facts) {
    const difference = changed.get(key as never);
    if (difference) lines.push(pc.red(`  ${label.padEnd(9)} ${value(difference.recorded)} → ${value(difference.now)}`));
    else if (recorded !== null) lines.push(`  ${label.padEnd(9)} ${value(recorded)}${report.replayed ? '' : ' (recorded; not compared: the replay stopped)'}`);
  }
  if (report.stopped) lines.push(pc.red(`  stopped   ${report.stopped}`));
  const calls = report.calls.filter((call) => call.kind !== 'arguments');
  const asked = report.calls.filter((call) => call.kind === 'arguments');
  // A replay that took another path reads the recorded clock at other moments: such differences are only time.
  const timeOnly = asked.filter((call) => isEpochMs(call.recorded) && isEpochMs(call.now));
  const shown = asked.filter((call) => !timeOnly.includes(call));
  if (calls.length > 0) lines.push(`  port calls that no longer line up (${calls.length}):`, ...calls.slice(0, 12).map((call) => `    ${renderCallDifference(call)}`));
  if (asked.length > 0) {
    lines.push(`  asked differently, answered from the recording (${asked.length}${timeOnly.length ? `, ${timeOnly.length} only in a time` : ''}):`, ...shown.slice(0, 8).map((call) => `    ${renderCallDifference(call)}`));
  }
  const otherDetails = report.details.filter((detail) => !/^(kind|item|changes|tokens|reason|reasons|gate|verification\.verdict)$/.test(detail.path));
  if (!report.identical && otherDetails.length > 0) {
    lines.push(`  result also differs at: ${otherDetails.slice(0, 6).map((detail) => detail.path).join(', ')}${otherDetails.length > 6 ? ', …' : ''}`);
  }
  if (report.planChanges.length > 0) {
    lines.push(`  configuration changed since the recording (${report.planChanges.length}):`, ...report.planChanges.slice(0, 6).map((change) => `    ${change.path}: ${shortJson(change.recorded, 50)} → ${shortJson(change.now, 50)}`));
  }
  lines.push(report.identical ? pc.green('identical: the tick ends as recorded') : pc.red(`differs (exit ${report.exitCode})`));
  return lines.join('\n');
}

/** `test`: one line per recording, the differing ones in full, then the counts. */
export function renderRecordingTests(summary: RecordingTestSummary): string {
  if (summary.results.length === 0) return 'No recordings found under loops/<id>/recordings/. Record one with `loop-runtime run <id> --record loops/<id>/recordings/<name>.json`.';
  const lines: string[] = [];
  for (const result of summary.results) {
    if (result.status === 'error') lines.push(pc.red(`✗ ${result.file}  cannot replay: ${result.message}`));
    else if (result.status === 'identical') lines.push(pc.green(`✓ ${result.file}  ${result.report.recorded.kind}`));
    else {
      const kind = result.report.replayed ? result.report.replayed.kind : 'stopped';
      lines.push(pc.red(`✗ ${result.file}  ${result.report.recorded.kind} → ${kind}`), ...renderReplay(result.report).split('\n').slice(1, -1).map((line) => `  ${line}`));
    }
  }
  const { identical, differs, error } = summary.counts;
  lines.push('', `${summary.results.length} recording(s): ${identical} identical, ${differs} differ${error ? `, ${error} could not be replayed` : ''}`);
  return lines.join('\n');
}
