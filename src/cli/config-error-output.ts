/**
 * The exit-3 output every command shares for a configuration problem: every issue (file, line, key, fix), nothing
 * ran. Apart from open.ts so a command that reads only configuration (`plan`) does not load the runtime with it.
 */
import { formatDiagnostic, type Diagnostic } from '../core/config/diagnostics.js';
import { ExitCode } from '../core/errors.js';
import type { CommandOutput } from './command.js';

/** Exit 3 with every issue (file, line, key, fix): nothing ran. */
export function configErrorOutput(issues: readonly Diagnostic[]): CommandOutput {
  const first = issues[0];
  const code = issues.length === 1 && first?.code ? first.code : 'CONFIG_INVALID';
  const message = issues.length === 1 && first ? formatDiagnostic(first) : `${issues.length} configuration problems.`;
  return { exitCode: ExitCode.configError, error: { code, message, issues }, json: null, text: issues.map(formatDiagnostic).join('\n') };
}
