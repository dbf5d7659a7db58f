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

  const { createSandboxedRunner } = await import('../../adapters/command-runner/bwrap-runner.js');
  const notes: string[] = [];
  const runner = await createSandboxedRunner({
    // The same rule as a loop below L3: no sandbox → only with the explicit, logged opt-out.
    level: 'L2',
    allowUnsandboxed: options.allowUnsandboxed === true,
    log: (line) => notes.push(line),
    env: io.env,
  });
  const evidence = await runner.run({ command, timeoutMs }, { cwd: io.cwd, timeoutMs, network, writableRoots });
  const exitCode = exitStatusOf(evidence);
  const outcome = evidence.timedOut
    ? `timed out after ${seconds}s`
    : evidence.exitCode !== null
      ? `exit ${evidence.exitCode}`
      : `killed by ${evidence.signal ?? 'a signal'}`;
  const summary = `[sandbox ${runner.isolation} · net ${network} · ${outcome} · ${evidence.durationMs} ms]`;
  const output = evidence.output;
  return {
    exitCode,
    json: { isolation: runner.isolation, network, writableRoots: [io.cwd, ...writableRoots], timeoutMs, exitStatus: exitCode, evidence },
    text: `${output}${output === '' || output.endsWith('\n') ? '' : '\n'}${summary}`,
    ...(notes.length > 0 ? { stderr: notes.join('\n') } : {}),
  };
}
