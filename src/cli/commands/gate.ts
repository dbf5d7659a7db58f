/**
 * `loop-runtime gate check`: the same flags, output and exit codes as
 * `loop-gate check` (0 allowed, 2 escalate, 1 error), so scripts written for
 * loop-gate work unchanged; with --json the decision loop-gate prints is the envelope's `data`.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { formatDiagnostic } from '../../core/config/diagnostics.js';
import { loadGate } from '../../core/config/load-gate.js';
import { checkGate, GATE_ACTIONS, type GateAction } from '../../core/gate/check-gate.js';
import type { CommandContext, CommandOutput } from '../command.js';

// Exit 1 and the message on stderr, as loop-gate does; with --json the envelope's error carries it.
const error = (message: string): CommandOutput => ({ exitCode: 1, error: { code: 'USAGE', message }, json: null, text: message });

export async function gateCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  if (args[0] !== 'check') return error(`Unknown gate action "${args[0] ?? ''}". Use: loop-runtime gate check --action <commit|merge|auto-merge> --paths <f1,f2,...>`);
  const action = options.action === undefined ? undefined : String(options.action);
  const pathList = options.paths === undefined ? undefined : String(options.paths);
  if (!action || pathList === undefined) return error('check requires --action and --paths.');
  if (!(GATE_ACTIONS as readonly string[]).includes(action)) return error(`Invalid --action: ${action}. Use one of: ${GATE_ACTIONS.join(', ')}.`);
  const gateFile = typeof options.gateFile === 'string' ? options.gateFile : 'gate.yaml';
  let text: string;
  try {
    text = await readFile(resolve(io.cwd, gateFile), 'utf8');
  } catch {
    return error(`Gate config not found: ${gateFile}. Create one (version: 1, denylist: [...]) or pass --gate-file <path>.`);
  }
  const loaded = loadGate(text, gateFile);
  if (!loaded.ok) return error(`Invalid gate config at ${gateFile}:\n${loaded.issues.map(formatDiagnostic).join('\n')}`);
  const paths = pathList.split(',').map((path) => path.trim()).filter(Boolean);
  if (paths.length === 0) return error('--paths must contain at least one non-empty path.');
  const decision = checkGate(loaded.value, action as GateAction, paths);
  return {
    exitCode: decision.allowed ? 0 : 2,
    errorCode: 'ESCALATE',
    json: decision,
    text: `${decision.allowed ? 'ALLOWED' : 'ESCALATE'} [${decision.trigger}] — ${decision.reason}`,
  };
}
