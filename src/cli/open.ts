/**
 * How a command reaches the runtime: open it for `--cwd` with the real clock
 * and the CLI's progress writer. A configuration problem becomes the exit-3
 * output every command shares.
 */
import { formatDiagnostic, type Diagnostic } from '../core/config/diagnostics.js';
import { ExitCode } from '../core/errors.js';
import { clockFor } from '../composition/host-adapters.js';
import type { Runtime } from '../composition/runtime.js';
import type { CliIO, CommandOutput } from './command.js';

export async function openCliRuntime(io: CliIO): Promise<{ ok: true; runtime: Runtime } | { ok: false; output: CommandOutput }> {
  const { openRuntime } = await import('../composition/runtime.js');
  const opened = await openRuntime({ cwd: io.cwd, env: io.env, clock: clockFor(), progress: io.progress });
  return opened.ok ? opened : { ok: false, output: configErrorOutput(opened.issues) };
}

/** Exit 3 with every issue (file, line, key, fix): nothing ran. */
export function configErrorOutput(issues: readonly Diagnostic[]): CommandOutput {
  const first = issues[0];
  const code = issues.length === 1 && first?.code ? first.code : 'CONFIG_INVALID';
  const message = issues.length === 1 && first ? formatDiagnostic(first) : `${issues.length} configuration problems.`;
  return { exitCode: ExitCode.configError, error: { code, message, issues }, json: null, text: issues.map(formatDiagnostic).join('\n') };
}
