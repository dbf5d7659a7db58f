/**
 * The report directory every runner gives a command that asks for one
 * (`CommandRunOptions.reportDir`): a fresh temporary directory outside the
 * worktree, made writable (a writable root, so bubblewrap and Seatbelt bind it
 * read-write at the same path), named by `$LOOP_RUNTIME_REPORT_DIR`; its
 * top-level files come back capped, and it is removed whatever happened.
 */
import { lstat, mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPORT_DIR_ENV, type CommandEvidence, type CommandRunOptions, type ReportFile } from '../../core/ports/index.js';

/** Reports beyond this are cut and marked; a cut report is never parsed (the exit code decides). */
export const REPORT_FILE_LIMIT = 32 * 1024 * 1024;
const MAX_FILES = 16;

async function readCapped(path: string): Promise<{ text: string; truncated: boolean }> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(REPORT_FILE_LIMIT + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { text: buffer.subarray(0, Math.min(bytesRead, REPORT_FILE_LIMIT)).toString('utf8'), truncated: bytesRead > REPORT_FILE_LIMIT };
  } finally {
    await handle.close();
  }
}

/**
 * Runs `run` with a report directory when `options.reportDir` asks for one; otherwise just runs it.
 *
 * @example
 * ```ts
 * if (options.reportDir) return withReportDir(options, (inner) => this.run(command, inner));
 * ```
 */
export async function withReportDir(options: CommandRunOptions, run: (options: CommandRunOptions) => Promise<CommandEvidence>): Promise<CommandEvidence> {
  if (!options.reportDir) return run(options);
  const directory = await mkdtemp(join(tmpdir(), 'loop-runtime-report-'));
  try {
    const evidence = await run({ ...options, reportDir: false, writableRoots: [...(options.writableRoots ?? []), directory], env: { ...options.env, [REPORT_DIR_ENV]: directory } });
    const reports: ReportFile[] = [];
    for (const name of (await readdir(directory)).sort().slice(0, MAX_FILES)) {
      // Regular files only: a symbolic link the command left could point anywhere on the host.
      if (!(await lstat(join(directory, name))).isFile()) continue;
      reports.push({ name, ...(await readCapped(join(directory, name))) });
    }
    return { ...evidence, reports };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
