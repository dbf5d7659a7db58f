/**
 * An in-memory StateWriter for tests: it keeps every record and note and
 * renders the same state file and run log the file adapter would write.
 */
import type { StateWriter, TickRecord } from '../engine/ports.js';
import { appendRunLogLine, runLogLineFromTick } from './run-log.js';
import { type StateNote, updateStateFile } from './state-file.js';

export interface MemoryStateWriterOptions {
  /** The state file's name, for display only (default "STATE.md"). */
  stateFile?: string;
  /** Project name used in fresh files. */
  project?: string;
  /** Starting text of the state file (default: none, so a fresh STATE.md is made). */
  initialState?: string;
  /** Starting text of the run log (default: none, so a fresh run log is made). */
  initialRunLog?: string;
}

/**
 * @example
 * ```ts
 * const state = new MemoryStateWriter({ project: 'acme' });
 * await engine.tick(...);
 * expect(state.records[0]?.outcome).toBe('no-op');
 * expect(state.stateText).toContain('Last run: 2026-09-15T08:00:39Z');
 * ```
 */
export class MemoryStateWriter implements StateWriter {
  readonly specificationVersion = 'state-writer-v1' as const;
  readonly stateFile: string;
  readonly records: TickRecord[] = [];
  readonly notes: StateNote[] = [];
  stateText: string | null;
  runLogText: string | null;
  private readonly project: string | undefined;

  constructor(options: MemoryStateWriterOptions = {}) {
    this.stateFile = options.stateFile ?? 'STATE.md';
    this.project = options.project;
    this.stateText = options.initialState ?? null;
    this.runLogText = options.initialRunLog ?? null;
  }

  async recordTick(record: TickRecord): Promise<void> {
    this.records.push(structuredClone(record));
    this.stateText = updateStateFile(this.stateText, { tick: record }, this.fileOptions());
    this.runLogText = appendRunLogLine(this.runLogText, runLogLineFromTick(record), {
      now: record.finishedAt,
      ...this.fileOptions(),
    });
  }

  async note(patternId: string, at: number, line: string): Promise<void> {
    const note = { patternId, at, line };
    this.notes.push(note);
    this.stateText = updateStateFile(this.stateText, { note }, this.fileOptions());
  }

  private fileOptions(): { project?: string } {
    return this.project === undefined ? {} : { project: this.project };
  }
}
