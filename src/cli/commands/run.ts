/**
 * `loop-runtime run <id>`: tick one loop now (N times with --ticks).
 * --dry-run runs the whole engine with the mock backend against in-memory
 * state and an in-memory overlay of the repository: nothing on disk changes.
 */
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
import { LEVELS, type Level } from '../../core/config/schemas.js';
import { formatDiagnostic } from '../../core/config/diagnostics.js';
import type { TickResult } from '../../core/engine/tick-result.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { renderRun } from '../render/render-run.js';

export interface RunSummary {
  pattern: { id: string; name: string };
  level: Level;
  backend: string;
  dryRun: boolean;
  ticks: TickResult[];
  budget: { spentToday: number; dailyTokenCap: number };
  /** What the runtime changed about the plan or its isolation for this run (dry-run, sandbox opt-out). */
  notes: string[];
  exitCode: number;
}

export function exitCodeForTicks(ticks: readonly TickResult[]): number {
  if (ticks.some((tick) => tick.kind === 'failed')) return ExitCode.tickFailed;
  if (ticks.some((tick) => tick.kind === 'halted' || tick.kind === 'paused')) return ExitCode.halted;
  return ExitCode.ok;
}

function parseLevel(value: unknown): Level | undefined {
  if (value === undefined) return undefined;
  const level = String(value).toUpperCase();
  if (!(LEVELS as readonly string[]).includes(level)) {
    throw new LoopRuntimeError('USAGE', `--level ${String(value)} is not an autonomy level.`, { fix: 'use L0, L1, L2 or L3.' });
  }
  return level as Level;
}

function parseTicks(value: unknown): number {
  const ticks = value === undefined ? 1 : Number(value);
  if (!Number.isInteger(ticks) || ticks < 1 || ticks > 10_000) {
    throw new LoopRuntimeError('USAGE', `--ticks ${String(value)} is not a number of ticks.`, { fix: 'pass a whole number from 1 to 10000.' });
  }
  return ticks;
}

export async function runCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const id = args[0];
  if (options.due) {
    const { runDue } = await import('./run-due.js');
    const backend = options.dryRun ? 'mock' : typeof options.backend === 'string' ? options.backend : undefined;
    const level = parseLevel(options.level);
    return runDue(io, { dryRun: Boolean(options.dryRun), allowUnsandboxed: Boolean(options.allowUnsandboxed), ...(id ? { id } : {}), ...(level ? { level } : {}), ...(backend ? { backendName: backend } : {}) });
  }
  if (!id) throw new LoopRuntimeError('USAGE', 'run needs a loop id.', { fix: 'run `loop-runtime list` to see the loops, then `loop-runtime run <id>`.' });
  const level = parseLevel(options.level);
  const count = parseTicks(options.ticks);
  const dryRun = Boolean(options.dryRun);
  const backendName = dryRun ? 'mock' : typeof options.backend === 'string' ? options.backend : undefined;

  const { loadProject, resolvePlan } = await import('../../project/load-project.js');
  const loaded = await loadProject(io.cwd);
  if (!loaded.ok) {
    return { exitCode: ExitCode.configError, json: { ok: false, issues: loaded.issues }, text: loaded.issues.map(formatDiagnostic).join('\n') };
  }
  const resolved = await resolvePlan(loaded.project, id, { ...(level ? { level } : {}), ...(backendName ? { backend: backendName } : {}) });
  if (!resolved.ok) {
    return { exitCode: ExitCode.configError, json: { ok: false, issues: resolved.issues }, text: resolved.issues.map(formatDiagnostic).join('\n') };
  }
  const plan = resolved.plan;

  // Under the loop's lease: a second concurrent tick throws LEASE_HELD (exit 4) before any side effect.
  const { tickUnderLease } = await import('./run-due.js');
  const summary = await tickUnderLease(loaded.project, plan, io, dryRun, count, { allowUnsandboxed: Boolean(options.allowUnsandboxed) });
  return { exitCode: summary.exitCode, json: summary, text: renderRun(summary) };
}
