/**
 * How a command reaches the runtime: open it for `--cwd` with the command's clock
 * and the CLI's progress writer. A configuration problem becomes the exit-3
 * output every command shares.
 */
// Static: only commands that open the runtime import this file, and each is itself loaded by `import()`
// (commands/index.ts). An `import()` here cost every one of them a facade file that re-imports ~40 chunks.
import { openRuntime, type Runtime } from '../composition/runtime.js';
import type { CliIO, CommandOutput } from './command.js';
import { configErrorOutput } from './config-error-output.js';

export { configErrorOutput };

export async function openCliRuntime(io: CliIO): Promise<{ ok: true; runtime: Runtime } | { ok: false; output: CommandOutput }> {
  const opened = await openRuntime({ cwd: io.cwd, env: io.env, clock: io.clock, progress: io.progress });
  return opened.ok ? opened : { ok: false, output: configErrorOutput(opened.issues) };
}
