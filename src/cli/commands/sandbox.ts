/**
 * `loop-runtime sandbox run [--write DIR]… [--net none|loopback] [--timeout S]
 * [--allow-unsandboxed] -- CMD…`: runs one command under the profile the
 * verifier uses (the current directory as the writable worktree), so users
 * can see what a loop's commands can and cannot do. Exits with the
 * command's exit code (124 on timeout, 128+n when killed by signal n).
 */
import { constants } from 'node:os';
import { resolve } from 'node:path';
import type { CommandEvidence } from '../../core/ports/index.js';
import { LoopRuntimeError } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';

const usage = 'loop-runtime sandbox run [--write DIR]… [--net none|loopback] [--timeout SECONDS] [--allow-unsandboxed] -- CMD…';

function usageError(message: string): LoopRuntimeError {
  return new LoopRuntimeError('USAGE', message, { fix: `use: ${usage}` });
}

/** Quotes one argument for `sh -c` when it needs it. */
export function shellQuote(argument: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(argument) ? argument : `'${argument.replace(/'/g, `'\\''`)}'`;
}

/** A command's exit status as a shell would report it. */
export function exitStatusOf(evidence: CommandEvidence): number {
  if (evidence.timedOut) return 124;
  if (evidence.exitCode !== null) return evidence.exitCode;
  const number = evidence.signal ? (constants.signals as Record<string, number>)[evidence.signal] : undefined;
  return number ? 128 + number : 1;
}

function list(value: unknown): string[] {
  if (value === undefined || value === false) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

export async function sandboxCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  if (args[0] !== 'run') throw usageError(`Unknown sandbox action "${args[0] ?? ''}".`);
  const argv = [...list(options['--']), ...args.slice(1)];
  if (argv.length === 0) throw usageError('No command given after "--".');
  const command = argv.length === 1 ? (argv[0] ?? '') : argv.map(shellQuote).join(' ');

  const network = options.net === undefined ? 'none' : String(options.net);
  if (network !== 'none' && network !== 'loopback') throw usageError(`--net must be "none" or "loopback", not "${network}".`);
  const seconds = options.timeout === undefined ? 600 : Number(options.timeout);
  if (!Number.isFinite(seconds) || seconds <= 0) throw usageError(`--timeout must be a positive number of seconds, not "${String(options.timeout)}".`);
  const timeoutMs = Math.round(seconds * 1000);
  const writableRoots = list(options.write).map((directory) => resolve(io.cwd, directory));

  const [{ runSandboxed }, { sandboxRunnerFor }] = await Promise.all([import('../../use-cases/sandbox-run.js'), import('../../composition/host-adapters.js')]);
  const { isolation, evidence, notes } = await runSandboxed({ command, cwd: io.cwd, network, writableRoots, timeoutMs, allowUnsandboxed: options.allowUnsandboxed === true, env: io.env }, sandboxRunnerFor);
  const exitCode = exitStatusOf(evidence);
  const outcome = evidence.timedOut
    ? `timed out after ${seconds}s`
    : evidence.exitCode !== null
      ? `exit ${evidence.exitCode}`
      : `killed by ${evidence.signal ?? 'a signal'}`;
  const summary = `[sandbox ${isolation} · net ${network} · ${outcome} · ${evidence.durationMs} ms]`;
  const output = evidence.output;
  return {
    exitCode,
    json: { isolation, network, writableRoots: [io.cwd, ...writableRoots], timeoutMs, exitStatus: exitCode, evidence },
    text: `${output}${output === '' || output.endsWith('\n') ? '' : '\n'}${summary}`,
    ...(notes.length > 0 ? { stderr: notes.join('\n') } : {}),
  };
}
