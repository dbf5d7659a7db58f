/**
 * The StateWriter for files on disk: the state file (STATE.md or
 * `<pattern>-state.md`) and loop-run-log.md under the project root.
 */
import { basename, resolve } from 'node:path';
import type { StateWriter, TickRecord } from '../../core/ports/index.js';
import { type RunLogLine, appendRunLogLine, runLogLineFromTick } from '../../core/state/run-log.js';
import { updateStateFile } from '../../core/state/state-file.js';
import { updateFileAtomically } from '../fs/atomic-file.js';

export interface FileStateWriterOptions {
  /** Project root; relative file names resolve against it. */
  root: string;
  /** State file name, e.g. "STATE.md" or "ci-sweeper-state.md". */
  stateFile: string;
  /** Run log file name, e.g. "loop-run-log.md". */
  runLog: string;
  /**
   * Applied to every piece of text the runtime writes (summaries, findings,
   * notes, run-log lines) before it reaches disk. Text already in the files
   * is never rewritten, so a human's bytes stay as they were.
   */
  redact?: (text: string) => string;
  /** Project name for fresh files (default: the root directory's name). */
  project?: string;
  /** Run-log entries older than this many days are pruned (default 30). */
  pruneDays?: number;
}

/**
 * @example
 * ```ts
 * const state = new FileStateWriter({ root: '/repo', stateFile: 'STATE.md', runLog: 'loop-run-log.md' });
 * await state.recordTick(record);
 * ```
 */
export class FileStateWriter implements StateWriter {
  readonly specificationVersion = 'state-writer-v1' as const;
  readonly statePath: string;
  readonly runLogPath: string;
  private readonly redact: (text: string) => string;
  private readonly project: string;
  private readonly pruneDays: number;

  constructor(options: FileStateWriterOptions) {
    this.statePath = resolve(options.root, options.stateFile);
    this.runLogPath = resolve(options.root, options.runLog);
    this.redact = options.redact ?? ((text) => text);
    this.project = options.project ?? basename(resolve(options.root));
    this.pruneDays = options.pruneDays ?? 30;
  }

  /** Updates the state file, then appends one run-log line; each write is atomic and locked. */
  async recordTick(record: TickRecord): Promise<void> {
    const safe = redactRecord(record, this.redact);
    await updateFileAtomically(this.statePath, (old) => updateStateFile(old, { tick: safe }, { project: this.project }));
    const line = runLogLineFromTick(safe);
    const redactedLine: RunLogLine = { ...line, pattern: this.redact(line.pattern) };
    for (const key of ['tick_id', 'level', 'kind'] as const) {
      const value = line[key];
      if (value !== undefined) redactedLine[key] = this.redact(value);
    }
    await updateFileAtomically(this.runLogPath, (old) =>
      appendRunLogLine(old, redactedLine, { now: record.finishedAt, pruneDays: this.pruneDays, project: this.project }),
    );
  }

  /** Writes a one-line note into the state file; no run-log line. */
  async note(patternId: string, at: number, line: string): Promise<void> {
    const note = { patternId, at, line: this.redact(line) };
    await updateFileAtomically(this.statePath, (old) => updateStateFile(old, { note }, { project: this.project }));
  }
}

function redactRecord(record: TickRecord, redact: (text: string) => string): TickRecord {
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
