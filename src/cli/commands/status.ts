/**
 * `loop-runtime status`: per loop, today's spend against the cap, whether it
 * is paused, and its last runs from loop-run-log.md.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pc from 'picocolors';
import { utcDay } from '../../core/budget/utc-day.js';
import { formatDiagnostic } from '../../core/config/diagnostics.js';
import { ExitCode } from '../../core/errors.js';
import { parseRunLog, type RunLogEntry } from '../../core/state/run-log.js';
import type { CommandContext, CommandOutput } from '../command.js';

export interface LoopStatus {
  id: string;
  name: string;
  level: string;
  spentToday: number;
  dailyTokenCap: number;
  paused: boolean;
  pausedBy?: string;
  stateFile: string;
  lastRuns: RunLogEntry[];
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

export async function statusCommand({ io }: CommandContext): Promise<CommandOutput> {
  const { loadProject, resolvePlan } = await import('../../project/load-project.js');
  const { FileBudgetLedger } = await import('../../adapters/budget-ledger/file-budget-ledger.js');
  const { FileKillSwitch } = await import('../../adapters/kill-switch/kill-switch.js');
  const loaded = await loadProject(io.cwd);
  if (!loaded.ok) {
    return { exitCode: ExitCode.configError, json: { ok: false, issues: loaded.issues }, text: loaded.issues.map(formatDiagnostic).join('\n') };
  }
  const { project } = loaded;
  const day = utcDay(Date.now());
  const runLogs = new Map<string, RunLogEntry[]>();
  const loops: LoopStatus[] = [];
  for (const id of project.configuredLoops) {
    const resolved = await resolvePlan(project, id);
    if (!resolved.ok) continue;
    const plan = resolved.plan;
    if (!runLogs.has(plan.files.runLog)) {
      const text = await readOptional(join(project.root, plan.files.runLog));
      runLogs.set(plan.files.runLog, text ? parseRunLog(text) : []);
    }
    const ledger = new FileBudgetLedger({ root: project.root, runLog: plan.files.runLog });
    const pause = await new FileKillSwitch({ root: project.root, stateFile: plan.files.state, env: io.env }).check();
    loops.push({
      id,
      name: plan.pattern.name,
      level: plan.level,
      spentToday: await ledger.spentOn(day, id),
      dailyTokenCap: plan.dailyTokenCap,
      paused: pause.paused,
      ...(pause.source ? { pausedBy: pause.source } : {}),
      stateFile: plan.files.state,
      lastRuns: runLogs.get(plan.files.runLog)!.filter((entry) => entry.pattern === id).slice(-5).reverse(),
    });
  }
  const text = [
    `Loops in ${project.root} (UTC day ${day}):`,
    ...(loops.length === 0 ? ['  none configured — run `loop-runtime list` to see the catalogue'] : []),
    ...loops.flatMap((loop) => [
      `  ${pc.bold(loop.id)} [${loop.level}] ${loop.spentToday.toLocaleString('en-US')} / ${loop.dailyTokenCap.toLocaleString('en-US')} tokens today${loop.paused ? pc.red(` — paused by ${loop.pausedBy}`) : ''}`,
      ...(loop.lastRuns.length
        ? loop.lastRuns.map((run) => `    · ${run.run_id} ${run.outcome} ~${Number(run.tokens_estimate).toLocaleString('en-US')} tokens`)
        : ['    · no runs recorded in the run log']),
    ]),
  ].join('\n');
  return { exitCode: ExitCode.ok, json: { day, root: project.root, loops }, text };
}
