/**
 * `loop-runtime replay <file>`: re-run a tick recorded with `run <id>
 * --record <file>` offline (no model, key or network) under the current
 * configuration, and show what would now differ. Exit 0 identical, 6 differs.
 */
import { resolve } from 'node:path';
import { LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { configErrorOutput, openCliRuntime } from '../open.js';
import { renderReplay } from '../render/render-replay.js';
import { parseLevel } from '../parse-level.js';

/** Handler for `loop-runtime replay <file>`. */
export async function replayCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const file = args[0];
  if (!file) throw new LoopRuntimeError('USAGE', 'replay needs a recording.', { fix: 'run `loop-runtime replay <file>` with a file written by `run <id> --record <file>`.' });
  const level = parseLevel(options.level);
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const result = await opened.runtime.replay(resolve(io.cwd, file), { ...(level ? { level } : {}), ...(options.recordedPlan ? { recordedPlan: true } : {}) });
  if (!result.ok) return configErrorOutput(result.issues);
  const report = { ...result.value, file };
  return { exitCode: report.exitCode, json: { ...report }, text: renderReplay(report) };
}
