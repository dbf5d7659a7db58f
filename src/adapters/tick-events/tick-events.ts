/**
 * The live event journal: every real tick (CLI, cron, CI, the library)
 * appends its engine events as JSON lines to `.loop-runtime/events.jsonl`,
 * so a `serve` process on the same machine can show a tick in progress that
 * it did not start. Bounded: past `EVENTS_MAX_BYTES` the file is renamed to
 * `events.jsonl.1` (the previous generation is dropped) and a new one starts.
 *
 * Appends are one `write` with O_APPEND of one whole line, so lines of two
 * processes never interleave. What is written is redacted by the caller.
 */
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineEvent } from '../../core/ports/index.js';
import type { TickResult } from '../../core/engine/tick-result.js';

export const EVENTS_FILE = '.loop-runtime/events.jsonl';
/** Rotate past this size; at most twice this is kept on disk. */
export const EVENTS_MAX_BYTES = 512 * 1024;

/** One line of the journal: an engine event of one loop, or a finished tick's full (redacted) result. */
export type TickEventLine =
  | (EngineEvent & { v: 1; loop: string; pid: number })
  | { v: 1; type: 'tick-result'; loop: string; pid: number; tickId: string; at: number; result: TickResult };

/** Appends one line, rotating first when the file is over the bound. Never throws: a journal failure must not fail a tick. */
export function appendTickEvent(root: string, line: TickEventLine, maxBytes = EVENTS_MAX_BYTES): void {
  const path = join(root, EVENTS_FILE);
  try {
    mkdirSync(join(root, '.loop-runtime'), { recursive: true });
    let size = 0;
    try {
      size = statSync(path).size;
    } catch {
      size = 0;
    }
    if (size > maxBytes) renameSync(path, `${path}.1`);
    appendFileSync(path, `${JSON.stringify(line)}\n`, { flag: 'a' });
  } catch {
    // The journal is for watching; the run log and the ledgers are the record.
  }
}

/** Parses journal text; a torn or foreign line is skipped, never fatal. */
export function parseTickEvents(text: string): TickEventLine[] {
  const lines: TickEventLine[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      const parsed = JSON.parse(raw) as TickEventLine;
      if (parsed && parsed.v === 1 && typeof parsed.type === 'string' && typeof parsed.loop === 'string') lines.push(parsed);
    } catch {
      // skipped
    }
  }
  return lines;
}

/** Both generations of the journal, oldest first. */
export async function readTickEvents(root: string): Promise<TickEventLine[]> {
  const path = join(root, EVENTS_FILE);
  const texts = await Promise.all([`${path}.1`, path].map((file) => readFile(file, 'utf8').catch(() => '')));
  return texts.flatMap(parseTickEvents);
}
