/**
 * What `status` reports: per configured loop, today's spend against its cap
 * (UTC day), whether it is paused and by what, and its last runs from the
 * run log. Reads only; every reader is the adapter the tick itself uses.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { utcDay } from '../core/budget/utc-day.js';
import type { Clock } from '../core/ports/index.js';
import { parseRunLog, type RunLogEntry } from '../core/state/run-log.js';
import type { ProjectStores } from './stores/project-stores.js';
import { FileKillSwitch } from '../adapters/kill-switch/kill-switch.js';
import { resolvePlan, type LoadedProject } from '../project/load-project.js';
import { describeBackendChoice, type BackendChoice } from './backend-choice.js';

export interface LoopStatus {
  id: string;
  name: string;
  level: string;
  spentToday: number;
  dailyTokenCap: number;
  paused: boolean;
  pausedBy?: string;
  stateFile: string;
  /** The backend a real tick would run (null: none installed) and why. */
  backend: { name: string | null; reason: string; fix?: string };
  lastRuns: RunLogEntry[];
}

export interface LoopStatusReport {
  day: string;
  root: string;
  /** Where spend, attempts and leases are kept: files, or the fleet's Postgres (no password). */
  store: string;
  loops: LoopStatus[];
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export async function loopStatus(project: LoadedProject, options: { clock: Clock; env: Record<string, string | undefined>; stores?: ProjectStores }): Promise<LoopStatusReport> {
  const stores = options.stores ?? (await import('./stores/file-stores.js')).fileStores(project, options.clock);
  const day = utcDay(options.clock.now());
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
    // The spend its configured backend is held to (mock rehearsal spend is not counted for a real backend).
    const ledger = stores.budgetLedger(plan, plan.backend.name);
    const pause = await new FileKillSwitch({ root: project.root, stateFile: plan.files.state, env: options.env, patternId: id }).check();
    loops.push({
      id,
      name: plan.pattern.name,
      level: plan.level,
      spentToday: await ledger.spentOn(day, id),
      dailyTokenCap: plan.dailyTokenCap,
      paused: pause.paused,
      ...(pause.source ? { pausedBy: pause.source } : {}),
      stateFile: plan.files.state,
      backend: backendOf(describeBackendChoice(plan, project.root, options.env)),
      lastRuns: runLogs.get(plan.files.runLog)!.filter((entry) => entry.pattern === id).slice(-5).reverse(),
    });
  }
  return { day, root: project.root, store: stores.description, loops };
}

function backendOf(choice: BackendChoice): LoopStatus['backend'] {
  return { name: choice.backend, reason: choice.reason, ...(choice.fix ? { fix: choice.fix } : {}) };
}
