/**
 * Redaction of what a StateWriter writes, shared by the file writer and its
 * memory twin so both write the same bytes. Pure. Only the runtime's own
 * fragments pass through `redact`; text already in the files is never touched.
 */
import type { TickRecord } from '../../core/ports/index.js';
import type { RunLogLine } from '../../core/state/run-log.js';

/** The record with every free-text field redacted. */
export function redactTickRecord(record: TickRecord, redact: (text: string) => string): TickRecord {
  return {
    ...record,
    summary: redact(record.summary),
    findings: record.findings.map((finding) => ({
      ...finding,
      summary: redact(finding.summary),
      ...(finding.itemKey === undefined ? {} : { itemKey: redact(finding.itemKey) }),
    })),
    waiting: record.waiting.map((item) => ({
      itemKey: redact(item.itemKey),
      title: redact(item.title),
      loopAction: redact(item.loopAction),
      humanDecision: redact(item.humanDecision),
    })),
  };
}

/** The run-log line with its string identity fields redacted too. */
export function redactRunLogLine(line: RunLogLine, redact: (text: string) => string): RunLogLine {
  const redacted: RunLogLine = { ...line, pattern: redact(line.pattern) };
  for (const key of ['tick_id', 'level', 'kind'] as const) {
    const value = line[key];
    if (value !== undefined) redacted[key] = redact(value);
  }
  return redacted;
}
