/**
 * `loop-runtime test`: replays every recording a team keeps under
 * `loops/<id>/recordings/*.json` against the current engine and
 * configuration — a regression suite for loops that needs no model, key or
 * network, so it runs in CI on every change to LOOP.md, gate.yaml or a level.
 */
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ExitCode, isLoopRuntimeError, mostSeriousExitCode } from '../core/errors.js';
import { formatDiagnostic } from '../core/config/diagnostics.js';
import type { LoadedProject } from '../project/load-project.js';
import { replayRecording, type ReplayOptions, type ReplayReport } from './replay.js';

/** One recording's result: its replay report, or why it could not be replayed (exit 3). */
export type RecordingTestResult =
  | { file: string; loop: string; status: 'identical' | 'differs'; report: ReplayReport }
  | { file: string; loop: string; status: 'error'; message: string };

export interface RecordingTestSummary {
  results: RecordingTestResult[];
  counts: { identical: number; differs: number; error: number };
  /** 0 all identical (or none found), 6 some differ, 3 some could not be replayed. */
  exitCode: number;
}

/** `loops/<id>/recordings/*.json` for every loop directory (or just `id`), sorted, relative to the root. */
export async function findRecordings(root: string, id?: string): Promise<Array<{ loop: string; file: string }>> {
  const loops = id ? [id] : await readdir(join(root, 'loops')).catch(() => [] as string[]);
  const found: Array<{ loop: string; file: string }> = [];
  for (const loop of [...loops].sort()) {
    const directory = join(root, 'loops', loop, 'recordings');
    const files = await readdir(directory).catch(() => [] as string[]);
    for (const file of files.filter((name) => name.endsWith('.json')).sort()) found.push({ loop, file: join(directory, file) });
  }
  return found;
}

/**
 * @example
 * ```ts
 * const summary = await testRecordings(project, { env: process.env });
 * summary.counts;   // { identical: 3, differs: 1, error: 0 }
 * summary.exitCode; // 6
 * ```
 */
export async function testRecordings(project: LoadedProject, options: ReplayOptions & { id?: string }): Promise<RecordingTestSummary> {
  const results: RecordingTestResult[] = [];
  for (const { loop, file } of await findRecordings(project.root, options.id)) {
    const shown = relative(project.root, file);
    try {
      const replayed = await replayRecording(project, file, options);
      if (!replayed.ok) {
        results.push({ file: shown, loop, status: 'error', message: replayed.issues.map(formatDiagnostic).join('; ') });
        continue;
      }
      results.push({ file: shown, loop, status: replayed.value.identical ? 'identical' : 'differs', report: { ...replayed.value, file: shown } });
    } catch (error) {
      if (!isLoopRuntimeError(error)) throw error;
      results.push({ file: shown, loop, status: 'error', message: error.message });
    }
  }
  const count = (status: RecordingTestResult['status']) => results.filter((result) => result.status === status).length;
  const exitCode = mostSeriousExitCode(results.map((result) => (result.status === 'error' ? ExitCode.configError : result.status === 'differs' ? ExitCode.replayDiffers : ExitCode.ok)));
  return { results, counts: { identical: count('identical'), differs: count('differs'), error: count('error') }, exitCode };
}
