/**
 * `loop-runtime test [id]`: replay every recording under
 * `loops/<id>/recordings/*.json` and report which ticks now end differently.
 * CI friendly: plain lines, `--json`, exit 0 / 6 (differs) / 3 (unreadable).
 */
import type { CommandContext, CommandOutput } from '../command.js';
import { openCliRuntime } from '../open.js';
import { renderRecordingTests } from '../render/render-replay.js';
import { parseLevel } from '../parse-level.js';

/** Handler for `loop-runtime test [id]`. */
export async function testCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const level = parseLevel(options.level);
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const summary = await opened.runtime.testRecordings({ ...(args[0] ? { id: args[0] } : {}), ...(level ? { level } : {}) });
  return { exitCode: summary.exitCode, json: { ...summary }, text: renderRecordingTests(summary) };
}
