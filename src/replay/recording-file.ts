/**
 * A recording: one tick's full port history (`run <id> --record <file>`) as a
 * JSON file a team can keep under `loops/<id>/recordings/` and replay offline.
 * Every string is redacted before it is written, with the redactor the logs
 * use (secret values from the environment plus token shapes).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { LoopRuntimeError } from '../core/errors.js';
import type { TickResult } from '../core/engine/tick-result.js';
import { REPLAY_HISTORY_VERSION, type ReplayHistory } from './port-history.js';
import { redactStrings, type Redact } from '../composition/wiring.js';

export const RECORDING_FORMAT = 'loop-runtime-recording';
export const RECORDING_VERSION = 1;

export interface Recording {
  format: typeof RECORDING_FORMAT;
  version: typeof RECORDING_VERSION;
  loop: string;
  /** ISO time the tick started (from the injected clock). */
  recordedAt: string;
  backend: string;
  dryRun: boolean;
  /** An observer was attached when it was recorded (the engine reads the clock for its events): replay attaches one too. */
  observed: boolean;
  history: ReplayHistory;
}

const CallSchema = z.object({ port: z.string(), method: z.string(), args: z.unknown(), result: z.unknown().optional(), error: z.string().optional(), async: z.boolean() });
const RecordingSchema = z.object({
  format: z.literal(RECORDING_FORMAT),
  version: z.literal(RECORDING_VERSION),
  loop: z.string().min(1),
  recordedAt: z.string(),
  backend: z.string(),
  dryRun: z.boolean(),
  observed: z.boolean(),
  history: z.object({
    version: z.literal(REPLAY_HISTORY_VERSION),
    plan: z.object({ version: z.number(), pattern: z.object({ id: z.string() }).passthrough() }).passthrough(),
    data: z.record(z.string(), z.unknown()),
    shapes: z.record(z.string(), z.object({ properties: z.record(z.string(), z.unknown()), methods: z.array(z.string()) })),
    calls: z.array(CallSchema),
    result: z.object({ tickId: z.string(), kind: z.string(), steps: z.array(z.unknown()) }).passthrough(),
  }),
});

/**
 * Builds the recording of one tick, every string redacted.
 *
 * @example
 * ```ts
 * const recording = toRecording(history, result, { backend: 'claude-code', dryRun: false, observed: true }, redactorFor(env));
 * ```
 */
export function toRecording(history: ReplayHistory, result: TickResult, meta: { backend: string; dryRun: boolean; observed: boolean }, redact: Redact): Recording {
  return redactStrings(
    {
      format: RECORDING_FORMAT,
      version: RECORDING_VERSION,
      loop: result.patternId,
      recordedAt: new Date(result.startedAt).toISOString(),
      ...meta,
      history,
    },
    redact,
  );
}

/** Writes a recording whole (temporary file + rename), creating its directory. */
export async function writeRecording(path: string, recording: Recording): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(recording, null, 1)}\n`);
  await rename(temporary, path);
}

/** Reads and validates a recording; an unreadable or foreign file is `RECORDING_INVALID` (exit 3) with the reason. */
export async function readRecording(path: string): Promise<Recording> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new LoopRuntimeError('RECORDING_INVALID', `Cannot read the recording ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`, {
      fix: 'pass a file written by `loop-runtime run <id> --record <file>`.',
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new LoopRuntimeError('RECORDING_INVALID', `${path} is not JSON: ${error instanceof Error ? error.message : String(error)}.`, { fix: 'record the tick again with `run <id> --record`.' });
  }
  const checked = RecordingSchema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new LoopRuntimeError('RECORDING_INVALID', `${path} is not a loop-runtime recording (version ${RECORDING_VERSION}): ${issue.path.join('.') || '(root)'}: ${issue.message}.`, {
      fix: 'record the tick again with `loop-runtime run <id> --record <file>` using this version of loop-runtime.',
    });
  }
  return parsed as Recording;
}
