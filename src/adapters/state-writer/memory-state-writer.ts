/**
 * An in-memory StateWriter for tests: it keeps every record and note and
 * renders the same state file and run log the file adapter would write.
 */
import type { StateWriter, TickRecord } from '../../core/ports/index.js';
import { appendRunLogLine, runLogLineFromTick, runsOnDay } from '../../core/state/run-log.js';
import { type StateNote, updateStateFile } from '../../core/state/state-file.js';
import { checkStateText } from './check-state-text.js';
import { redactRunLogLine, redactTickRecord } from './redact-tick.js';

export interface MemoryStateWriterOptions {
  /** The state file's name, for display and errors (default "STATE.md"). */
  stateFile?: string;
  /** The run log's name, for errors (default "loop-run-log.md"). */
  runLog?: string;
  /** Applied to every piece of text written, as `FileStateWriter` does (default: none). */
  redact?: (text: string) => string;
  /** Project name used in fresh files. */
  project?: string;
  /** Starting text of the state file (default: none, so a fresh STATE.md is made). */
  initialState?: string;
  /** Starting text of the run log (default: none, so a fresh run log is made). */
  initialRunLog?: string;
  /** Runs recorded elsewhere that count toward `runsOn` (a dry run counts the real run log's). */
  priorRuns?: (patternId: string, day: string) => Promise<number>;
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
type PendingUpdate = { kind: 'tick'; record: TickRecord } | { kind: 'note'; note: StateNote };

export class MemoryStateWriter implements StateWriter {
  readonly specificationVersion = 'state-writer-v1' as const;
  readonly stateFile: string;
  readonly runLog: string;
  /** What was recorded, as given (before redaction). */
  readonly records: TickRecord[] = [];
  readonly notes: StateNote[] = [];
  private readonly project: string | undefined;
  private readonly redact: ((text: string) => string) | undefined;
  /** Whether the seeded texts passed `checkStateText` (our own renders always do). */
  private seedChecked = false;
  private renderedState: string | null;
  private renderedRunLog: string | null;
  /** Updates not yet rendered: the texts are rendered when read, so recording stays O(1) per tick. */
  private pending: PendingUpdate[] = [];
  private readonly priorRuns: MemoryStateWriterOptions['priorRuns'];

  constructor(options: MemoryStateWriterOptions = {}) {
    this.stateFile = options.stateFile ?? 'STATE.md';
    this.runLog = options.runLog ?? 'loop-run-log.md';
    this.redact = options.redact;
    this.project = options.project;
    this.renderedState = options.initialState ?? null;
    this.renderedRunLog = options.initialRunLog ?? null;
    this.priorRuns = options.priorRuns;
  }

  /** The state file as the file adapter would have written it. */
  get stateText(): string | null {
    this.render();
    return this.renderedState;
  }

  /** Runs of `patternId` on the UTC day `day`: those of `priorRuns` (a dry run's real run log) plus the run log held here. */
  async runsOn(patternId: string, day: string): Promise<number> {
    return ((await this.priorRuns?.(patternId, day)) ?? 0) + runsOnDay(this.runLogText, patternId, day);
  }

  /** The run log as the file adapter would have written it. */
  get runLogText(): string | null {
    this.render();
    return this.renderedRunLog;
  }

  /** Refuses a damaged seed the way the file writer refuses a damaged file (`STATE_FAILED`, name:line). */
  async recordTick(record: TickRecord): Promise<void> {
    this.checkSeed();
    // A copy, so a caller mutating its record later cannot rewrite history. A plain spread (an exact-size copy of
    // the record, kept for the whole run), then its lists replaced by copies on the object just built.
    const copy: TickRecord = { ...record };
    copy.findings = record.findings.map((finding) => ({ ...finding }));
    copy.waiting = record.waiting.map((item) => ({ ...item }));
    this.records.push(copy);
    this.pending.push({ kind: 'tick', record: copy });
  }

  async note(patternId: string, at: number, line: string): Promise<void> {
    this.checkSeed();
    const note = { patternId, at, line };
    this.notes.push(note);
    this.pending.push({ kind: 'note', note });
  }

  private checkSeed(): void {
    if (this.seedChecked) return;
    checkStateText(this.renderedState, this.stateFile);
    checkStateText(this.renderedRunLog, this.runLog);
    this.seedChecked = true;
  }

  private render(): void {
    const options = this.project === undefined ? {} : { project: this.project };
    for (const update of this.pending) {
      const redact = this.redact;
      if (update.kind === 'note') {
        const note = redact ? { ...update.note, line: redact(update.note.line) } : update.note;
        this.renderedState = updateStateFile(this.renderedState, { note }, options);
        continue;
      }
      const record = redact ? redactTickRecord(update.record, redact) : update.record;
      this.renderedState = updateStateFile(this.renderedState, { tick: record }, options);
      const line = runLogLineFromTick(record);
      this.renderedRunLog = appendRunLogLine(this.renderedRunLog, redact ? redactRunLogLine(line, redact) : line, { now: record.finishedAt, ...options });
    }
    this.pending = [];
  }
}
