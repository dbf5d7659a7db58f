/**
 * `loop-runtime ci due [--loop <id>] [--state-branch <name>]`: the scheduled job's first step. It decides whether
 * any loop is due before the job installs the project's dependencies, the agent CLI and bubblewrap, and writes
 * `due=true|false` and `loops=<ids>` to `$GITHUB_OUTPUT`; every heavy step runs only when `due` is not `false`.
 *
 * It needs only loop-runtime itself: the schedule comes from LOOP.md / the registry, the last runs from the state
 * branch (the same `state pull` as the tick, into the checkout, so the tick's later pull finds nothing new).
 * Anything but an explicit scheduled "nothing is due" answers due=true with the reason: a manual or event run, a
 * state branch that cannot be read, a configuration that does not load. A skipped tick must never hide a failure.
 */
import { appendFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ExitCode } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import type { Clock } from '../../core/ports/clock.js';

/** What the due step decided, as `--json` prints it. */
export interface CiDueResult {
  due: boolean;
  /** The loops that are due (all evaluated loops when `due` is true for a reason other than the schedule). */
  loops: string[];
  /** `event` (not a scheduled run), `schedule` (decided from the cadences and past runs), `unknown` (could not decide). */
  basis: 'event' | 'schedule' | 'unknown';
  /** One line per loop, or why the decision could not be made. */
  details: string[];
}

export async function ciDue({ options, io }: CommandContext): Promise<CommandOutput> {
  const only = typeof options.loop === 'string' && options.loop !== '' ? options.loop : undefined;
  const result = await decideCiDue(io.cwd, io.env, {
    ...(only ? { loop: only } : {}),
    stateBranch: options.state === false ? null : typeof options.stateBranch === 'string' ? options.stateBranch : undefined,
    ...(typeof options.clockFile === 'string' ? { clockFile: resolve(io.cwd, options.clockFile) } : {}),
    clock: io.clock,
  });
  const outputPath = io.env.GITHUB_OUTPUT;
  if (outputPath) await appendFile(outputPath, `due=${result.due}\nloops=${result.loops.join(' ')}\n`, 'utf8');
  const headline = result.due
    ? `Due: ${result.loops.join(', ') || 'every loop'} (${result.basis === 'event' ? 'not a scheduled run' : result.basis === 'schedule' ? 'by cadence' : 'could not decide, so the tick runs'}).`
    : 'Nothing is due: the installs and the tick are skipped.';
  const warning = result.basis === 'unknown' ? [`::warning title=loop-runtime due check::${result.details.join(' ')} The job runs the tick so nothing is skipped silently.`] : [];
  if (io.env.GITHUB_STEP_SUMMARY && !result.due) await appendFile(io.env.GITHUB_STEP_SUMMARY, `### loop-runtime: nothing due\n\n${result.details.map((line) => `- ${line}`).join('\n')}\n`, 'utf8');
  return { exitCode: ExitCode.ok, json: result, text: [...warning, headline, ...result.details.map((line) => `  ${line}`)].join('\n') };
}

export interface DecideCiDueOptions {
  loop?: string;
  /** undefined: the default branch; null: no state branch (the checkout's files only). */
  stateBranch?: string | null | undefined;
  clockFile?: string;
  /** The time the decision is made at without `clockFile` (the command's clock); default the real clock. */
  clock?: Clock;
  remote?: string;
}

/**
 * @example
 * ```ts
 * const decided = await decideCiDue('/repo', { GITHUB_EVENT_NAME: 'schedule' }); // { due: false, loops: [], basis: 'schedule', … }
 * ```
 */
export async function decideCiDue(root: string, env: Record<string, string | undefined>, options: DecideCiDueOptions = {}): Promise<CiDueResult> {
  const event = env.GITHUB_EVENT_NAME;
  // Manual dispatch and event triggers tick now: only a scheduled run asks whether anything is due.
  if (event !== undefined && event !== 'schedule') return { due: true, loops: options.loop ? [options.loop] : [], basis: 'event', details: [`${event} runs tick now.`] };
  const unknown = (why: string): CiDueResult => ({ due: true, loops: options.loop ? [options.loop] : [], basis: 'unknown', details: [why] });
  if (options.stateBranch !== null) {
    try {
      const { syncState } = await import('../../use-cases/state-sync.js');
      await syncState({ action: 'pull', root, remote: options.remote ?? 'origin', branch: options.stateBranch, env });
    } catch (error) {
      return unknown(`The state branch could not be read (${firstLine(error)}), so the last runs are unknown.`);
    }
  }
  try {
    const { loadProject } = await import('../../project/load-project.js');
    const loaded = await loadProject(root);
    if (!loaded.ok) return unknown(`The configuration did not load (${loaded.issues.length} problem(s); the tick reports them).`);
    const { evaluateDueLoops } = await import('../../use-cases/due-loops.js');
    const { clockFor } = await import('../../composition/host-adapters.js');
    const now = clockFor(options.clock ?? { now: () => Date.now() }, options.clockFile ? { clockFile: options.clockFile } : {}).now();
    const evaluation = await evaluateDueLoops(loaded.project, now, options.loop ? { loops: [options.loop] } : {});
    if (evaluation.issues.length > 0) return unknown(`${evaluation.issues.length} loop(s) could not be planned (the tick reports why).`);
    if (evaluation.decisions.length === 0) return unknown(options.loop ? `No configured loop is named ${options.loop}.` : 'No configured loop to decide for.');
    const due = evaluation.decisions.filter((decision) => decision.due).map((decision) => decision.id);
    const details = evaluation.decisions.map((decision) => `${decision.id}: ${decision.due ? `due (${decision.reason})` : 'not due'} — ${decision.detail}`);
    return { due: due.length > 0, loops: due, basis: 'schedule', details };
  } catch (error) {
    return unknown(`The last runs could not be read (${firstLine(error)}).`);
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();
}
