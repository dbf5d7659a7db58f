/**
 * The CLI entry: parse argv with cac, dispatch to one command's lazily
 * loaded handler, render its result (JSON with --json, text otherwise) and
 * map errors to the documented exit codes. Returns the exit code.
 */
import { resolve } from 'node:path';
import { cac } from 'cac';
import { ExitCode, exitCodeFor, isLoopRuntimeError } from '../core/errors.js';
import type { CliIO, CommandDefinition } from './command.js';
import { commands } from './commands/index.js';
import type { Clock } from '../core/ports/clock.js';
import { createProgress, isCi, progressMode } from './progress.js';
import { listenForStop } from './stop-signals.js';

const ANSI = /\x1b\[[0-9;]*m/g;

export interface MainOptions {
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Whether stdout is a terminal (colour). Default process.stdout.isTTY. */
  isTTY?: boolean;
  /** Whether stderr is a terminal (live progress). Default: `isTTY` when given, else process.stderr.isTTY. */
  stderrIsTTY?: boolean;
  /** The clock every command reads (a tick's records, a day's spend, progress times); tests inject one. Default Date.now. */
  clock?: Clock;
  /** The operator's stop for interruptible commands (`run`, `worker`, `serve`); default: this process's SIGINT, SIGTERM and SIGHUP. */
  signal?: AbortSignal;
}

function colorEnabled(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTTY && env.TERM !== 'dumb';
}

export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  const stdout = options.stdout ?? ((text: string) => void process.stdout.write(text));
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
  const env = options.env ?? process.env;
  const isTTY = options.isTTY ?? Boolean(process.stdout.isTTY);
  const stderrIsTTY = options.stderrIsTTY ?? options.isTTY ?? Boolean(process.stderr.isTTY);
  const color = colorEnabled(env, isTTY);
  const ci = isCi(env);
  const paint = (text: string) => (color ? text : text.replace(ANSI, ''));

  const cli = cac('loop-runtime');
  cli.option('--cwd <dir>', 'Run in this repository instead of the current directory');
  cli.option('--json', 'Machine-readable output');
  let selected: CommandDefinition | undefined;
  // `loop-runtime <command> …` needs only that command's definition to parse (cac matches by the first word);
  // help, a leading global flag or an unknown word registers all of them. Defining ~20 commands and their
  // options was ~1 ms of every start.
  const wantsHelp = argv.length === 0 || argv[0] === 'help' || argv.some((arg) => arg === '--help' || arg === '-h');
  const named = wantsHelp ? undefined : commands.find((definition) => definition.name.split(' ')[0] === argv[0]);
  for (const definition of named ? [named] : commands) {
    const command = cli.command(definition.name, definition.description);
    for (const option of definition.options) {
      command.option(option.flags, option.description, option.default === undefined ? undefined : { default: option.default });
    }
    for (const example of definition.examples ?? []) command.example(example);
    command.action(() => {
      selected = definition;
    });
  }
  cli.help((sections) => [
    ...sections,
    {
      title: 'Exit codes',
      body: '  0 ok · 1 a tick failed · 2 halted on purpose (budget, L0, kill switch) · 3 configuration, usage or precondition error (no commit, no remote, no GitHub token, agent CLI or key missing) · 4 lease held (a tick already runs) · 5 could not run, a human must act (backend logged out/out of quota, circuit open, no sandbox) · 6 replay/test: a recorded tick now ends differently (decision, verdict, gate, outcome or port calls) · 128+n stopped by a signal: 130 SIGINT (Ctrl-C), 143 SIGTERM, 129 SIGHUP (what was spent settled, the lease released, a half-done change kept in the inbox)',
    },
  ]);
  // The version is read (package.json, its own module) only where cac can print it: `--version`/`-v`, and help's
  // header and options — asked for, or shown because no command was named (`loop-runtime --json`).
  const versionAsked = argv.some((arg) => arg === '--version' || (/^-[^-]/.test(arg) && arg.includes('v')));
  if (!named || versionAsked) cli.version((await import('./package-version.js')).packageVersion());

  // `help <command>` is `<command> --help`.
  if (argv[0] === 'help') argv = argv.length > 1 ? [argv[1]!, '--help'] : ['--help'];
  let parsed;
  try {
    parsed = cli.parse(['node', 'loop-runtime', ...argv], { run: false });
  } catch (error) {
    stderr(`${error instanceof Error ? error.message : String(error)}\nRun \`loop-runtime --help\` for usage.\n`);
    return ExitCode.configError;
  }
  if (parsed.options.help || parsed.options.version) return ExitCode.ok;
  if (!cli.matchedCommand) {
    if (parsed.args.length === 0) {
      cli.outputHelp();
      return ExitCode.ok;
    }
    stderr(`Unknown command "${parsed.args[0]}". Run \`loop-runtime --help\` to see the commands.\n`);
    return ExitCode.configError;
  }
  try {
    // cac checks unknown flags and missing option values here, not in parse().
    await cli.runMatchedCommand();
  } catch (error) {
    stderr(`loop-runtime ${cli.matchedCommand.name}: ${error instanceof Error ? error.message : String(error)}. Run \`loop-runtime ${cli.matchedCommand.name} --help\` for its flags.\n`);
    return ExitCode.configError;
  }
  const definition = selected!;
  const json = Boolean(parsed.options.json);
  const command = commandName(definition, parsed.args.map(String));
  const clock = options.clock ?? { now: () => Date.now() };
  const progress = createProgress({ mode: progressMode({ json, ci, stderrIsTTY }), clock, write: (text) => stderr(paint(text)) });
  let removeInterrupt: (() => void) | null = null;
  let interruptSignal: AbortSignal | null = null;
  const stopSignal = (): AbortSignal => {
    if (options.signal) return options.signal;
    // Every stop signal takes one path (stop-signals.ts); asked twice, the command gets the same signal.
    if (interruptSignal) return interruptSignal;
    const stop = listenForStop({ onStop: (name) => stderr(`${name === 'SIGINT' ? 'Ctrl-C (SIGINT)' : name}: stopping; a second signal exits at once.\n`) });
    removeInterrupt = () => stop.dispose();
    interruptSignal = stop.signal;
    return stop.signal;
  };
  const io: CliIO = {
    cwd: typeof parsed.options.cwd === 'string' ? resolve(options.cwd ?? process.cwd(), parsed.options.cwd) : (options.cwd ?? process.cwd()),
    env,
    isTTY,
    ci,
    clock,
    progress: (line) => progress.report(line),
    announce: (line) => stdout(paint(`${line}\n`)),
    stopSignal,
  };
  // The envelope's module loads only for --json: every other run is one file fewer to load.
  const { envelope } = json ? await import('./envelope.js') : { envelope: null };
  try {
    const handler = await definition.load();
    const output = await handler({ args: parsed.args.map(String), options: parsed.options, io }).finally(() => {
      progress.stop();
      removeInterrupt?.();
    });
    if (output.error) {
      if (envelope) stdout(printJson(envelope({ command, exitCode: output.exitCode, error: output.error, data: output.json ?? undefined })));
      else stderr(paint(`${output.text || output.error.message}\n`));
      return output.exitCode;
    }
    if (output.stderr) stderr(paint(output.stderr.endsWith('\n') ? output.stderr : `${output.stderr}\n`));
    // The one place --json output is written: every command's result goes out in the same envelope (envelope.ts).
    if (envelope) stdout(printJson(envelope({ command, exitCode: output.exitCode, data: output.json, errorCode: output.errorCode, text: output.stderr || output.text })));
    else if (output.text) stdout(paint(output.text.endsWith('\n') ? output.text : `${output.text}\n`));
    return output.exitCode;
  } catch (error) {
    const code = exitCodeFor(error);
    const message = error instanceof Error ? error.message : String(error);
    if (envelope) {
      const fix = isLoopRuntimeError(error) ? error.fix : undefined;
      stdout(printJson(envelope({ command, exitCode: code, error: { code: isLoopRuntimeError(error) ? error.code : 'INTERNAL', message, ...(fix ? { fix } : {}) } })));
    } else {
      stderr(`${paint(`loop-runtime: ${message}`)}\n`);
      if (!isLoopRuntimeError(error) && error instanceof Error && env.LOOP_RUNTIME_DEBUG) stderr(`${error.stack}\n`);
    }
    return code;
  }
}

function printJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The envelope's `command`: the command's word, and its sub-action for the `<action>` commands (`ci summary`, `state pull`). */
function commandName(definition: CommandDefinition, args: readonly string[]): string {
  const [word, second] = definition.name.split(' ');
  return second === '<action>' && args[0] ? `${word} ${args[0]}` : word!;
}
