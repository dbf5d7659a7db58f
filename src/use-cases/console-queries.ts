/**
 * What the operator console reads, built from the same files and adapters a
 * tick uses: loops with their schedule, lease and pause sources; the run log
 * as history; a tick's detail from the event journal; spend per UTC day;
 * an escalated change's diff. Reads only; every string is redacted.
 */
import { tickState } from '../core/text/tick-state.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { utcDay } from '../core/budget/utc-day.js';
import type { Clock } from '../core/ports/index.js';
import type { TickResult } from '../core/engine/tick-result.js';
import { parseRunLog, type RunLogEntry } from '../core/state/run-log.js';
import { checkGate, type GateDecision } from '../core/gate/check-gate.js';
import { changedPaths } from '../core/ports/index.js';
import { LoopRuntimeError } from '../core/errors.js';
import type { LoopHalt, PauseSource } from '../core/ports/index.js';
import { circuitReader, type OpenCircuit } from './circuit-report.js';
import { resolvePlan, type LoadedProject } from '../project/load-project.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import { readTickEvents } from '../adapters/tick-events/tick-events.js';
import type { ProjectStores } from '../composition/stores/project-stores.js';
import { redactorFor } from '../composition/wiring.js';
import { fileSnapshot } from '../adapters/fs/file-snapshot.js';
import { describeBackendChoice } from '../composition/backend-choice.js';

export interface QueryOptions {
  clock: Clock;
  env: Record<string, string | undefined>;
  /** The project's shared stores (spend, past ticks); files when absent. */
  stores?: ProjectStores;
}

async function storesOf(project: LoadedProject, options: QueryOptions): Promise<ProjectStores> {
  return options.stores ?? (await import('../composition/stores/file-stores.js')).fileStores(project, options.clock);
}

/** One loop as the console's Loops table shows it. */
export interface ConsoleLoop {
  id: string;
  name: string;
  level: string;
  backend: string;
  cadence: string;
  nextDueAt: string | null;
  due: boolean;
  lease: { pid: number; host: string; since: string; tickId: string | null } | null;
  lastOutcome: string | null;
  lastRunAt: string | null;
  spentToday: number;
  dailyTokenCap: number;
  paused: boolean;
  /** Every pause form set now; the first one holds. */
  pausedBy: PauseSource[];
  /** The halt that needs a human, when one stops the loop. */
  halted: LoopHalt | null;
  /** The circuit breaker, when open (its failures, and `resume <id>` to close it). */
  circuit: OpenCircuit | null;
  /** What lets the loop run again, when a halt, an open circuit or its own pause stops it. */
  fix: string | null;
  /** Whether the loop earns its tokens: all its spend over the last 30 days per accepted (merged, not reverted) change, as `metrics` computes it. */
  perMergedChange: PerMergedChange;
}

/** `usd`/`tokens` are null with no accepted change in the window; `complete: false` when some spend had no known price (a lower bound). */
export interface PerMergedChange {
  days: number;
  merged: number;
  tokens: number | null;
  usd: number | null;
  complete: boolean;
  /** Why it could not be computed (an unreadable outcomes file), when it could not. */
  error?: string;
}

const COST_WINDOW_DAYS = 30;

/** Each loop's spend per merged change over the last 30 days; an unreadable outcomes file is reported, never a 500. */
async function perMergedChanges(project: LoadedProject, plans: readonly ExecutionPlan[], now: number, stores: Pick<ProjectStores, 'outcomes' | 'spendByTick'>): Promise<Map<string, PerMergedChange>> {
  const { gatherMetrics } = await import('./outcomes/gather-metrics.js');
  const result = new Map<string, PerMergedChange>();
  try {
    const reports = await gatherMetrics(project.root, plans, { now, since: now - COST_WINDOW_DAYS * 86_400_000, audit: async () => ({ ok: false, note: 'not run by the console' }), outcomes: stores.outcomes(), spendByTick: (query) => stores.spendByTick(query) });
    for (const report of reports) {
      result.set(report.pattern, { days: COST_WINDOW_DAYS, merged: report.changes.merged, tokens: report.tokens.perMerged, usd: report.costUsd.perMerged, complete: report.costUsd.complete });
    }
  } catch (error) {
    for (const plan of plans) result.set(plan.pattern.id, { days: COST_WINDOW_DAYS, merged: 0, tokens: null, usd: null, complete: false, error: error instanceof Error ? error.message : String(error) });
  }
  return result;
}

export interface HistoryFilter {
  loop?: string;
  outcome?: string;
  /** Inclusive UTC days, YYYY-MM-DD. */
  from?: string;
  to?: string;
  limit?: number;
}

export interface SpendReport {
  day: string;
  days: string[];
  loops: SpendReportLoop[];
}

export interface SpendReportLoop {
  id: string;
  dailyTokenCap: number;
  spentToday: number;
  perDay: number[];
  /**
   * Dollars per day, beside `perDay`: the `costUsd` the store settled per tick (what `metrics` sums); null on a day
   * with spend and no known price. `costCompletePerDay[i]` is false when some of that day's spend had no price
   * (the dollars are then a lower bound).
   */
  costUsdPerDay: Array<number | null>;
  costCompletePerDay: boolean[];
}

async function plansOf(project: LoadedProject): Promise<ExecutionPlan[]> {
  const plans: ExecutionPlan[] = [];
  for (const id of project.configuredLoops) {
    const resolved = await resolvePlan(project, id);
    if (resolved.ok) plans.push(resolved.plan);
  }
  return plans;
}

async function runLogEntries(root: string, plans: readonly ExecutionPlan[]): Promise<RunLogEntry[]> {
  const files = [...new Set(plans.map((plan) => plan.files.runLog))];
  const texts = await Promise.all(files.map((file) => readFile(join(root, file), 'utf8').catch(() => '')));
  return texts.flatMap((text) => (text ? parseRunLog(text) : []));
}

/** Every run-log entry of the configured loops' run logs, in file order. */
export async function runLogOf(project: LoadedProject): Promise<RunLogEntry[]> {
  return runLogEntries(project.root, await plansOf(project));
}

/** Every configured loop with schedule, lease holder, last outcome, spend and pause sources. */
export async function consoleLoops(project: LoadedProject, options: QueryOptions): Promise<ConsoleLoop[]> {
  const now = options.clock.now();
  const day = utcDay(now);
  const plans = await plansOf(project);
  const [{ evaluateDueLoops }, { fileLeasesFor }, entries] = await Promise.all([import('./due-loops.js'), import('../composition/project-adapters.js'), runLogEntries(project.root, plans)]);
  const stores = await storesOf(project, options);
  const due = await evaluateDueLoops(project, now, { loops: plans.map((plan) => plan.pattern.id), stores });
  const leases = fileLeasesFor(project.root, options.clock);
  const lastEntries = new Map<string, RunLogEntry>();
  for (const entry of entries) if (entry.pattern) lastEntries.set(entry.pattern, entry);
  const spent = await stores.spentByLoopOn(day, plans);
  const costs = await perMergedChanges(project, plans, now, stores);
  // One read and one parse of each state file and run log for the whole list: every loop's kill switch reads its
  // run log for halts, and 50 loops sharing one run log parsed it 50 times (~80 ms of a request).
  const files = fileSnapshot();
  const circuits = circuitReader(stores);
  const loops = await Promise.all(
    plans.map(async (plan): Promise<ConsoleLoop> => {
      const id = plan.pattern.id;
      const decision = due.decisions.find((entry) => entry.id === id);
      const holder = await leases.readHolder(leases.loopLeasePath(id));
      const last = lastEntries.get(id);
      const killSwitch = stores.killSwitch(plan, { env: options.env, readText: files.readText, readRunLog: files.readRunLog });
      const [pausedBy, halted, circuit] = await Promise.all([killSwitch.sources(), killSwitch.activeHalt(), circuits(plan)]);
      return {
        id,
        name: plan.pattern.name,
        level: plan.level,
        // The agent a real tick runs, as `status` names it (a loop with no `backend:` resolves `auto` to the installed agent).
        backend: describeBackendChoice(plan, project.root, options.env).backend ?? 'none installed',
        cadence: plan.cadence.text,
        nextDueAt: decision ? new Date(decision.nextAt).toISOString() : null,
        due: decision?.due ?? false,
        lease: holder ? { pid: holder.pid, host: holder.host, since: new Date(holder.startedAt).toISOString(), tickId: holder.tickId ?? null } : null,
        lastOutcome: last ? tickState(last) : null,
        lastRunAt: last?.run_id ?? null,
        spentToday: spent.get(id) ?? 0,
        dailyTokenCap: plan.dailyTokenCap,
        paused: pausedBy.length > 0,
        pausedBy,
        halted,
        circuit,
        fix: halted || circuit || pausedBy.some((source) => source.loop === id) ? `loop-runtime resume ${id}` : null,
        perMergedChange: costs.get(id) ?? { days: COST_WINDOW_DAYS, merged: 0, tokens: null, usd: null, complete: true },
      };
    }),
  );
  return loops;
}

/** The run log of every configured loop, newest first, filtered. */
export async function runHistory(project: LoadedProject, filter: HistoryFilter, options: QueryOptions): Promise<Array<RunLogEntry & { state: string }>> {
  const entries = await runLogEntries(project.root, await plansOf(project));
  const kept = entries
    .map((entry) => ({ ...entry, state: tickState(entry) }))
    .filter((entry) => (filter.loop ? entry.pattern === filter.loop : true))
    // The filter names a state (tick-state.ts); the run log's own outcome words still match, for old links.
    .filter((entry) => (filter.outcome ? entry.state === filter.outcome || entry.outcome === filter.outcome : true))
    .filter((entry) => (filter.from ? entry.run_id.slice(0, 10) >= filter.from : true))
    .filter((entry) => (filter.to ? entry.run_id.slice(0, 10) <= filter.to : true))
    .sort((a, b) => b.run_id.localeCompare(a.run_id))
    .slice(0, Math.max(1, Math.min(filter.limit ?? 200, 1000)));
  return kept;
}

/** A tick's full result from the event journal (null once rotated away) and its run-log line. */
export async function tickDetail(project: LoadedProject, tickId: string, options: QueryOptions): Promise<{ tickId: string; entry: RunLogEntry | null; result: TickResult | null; events: unknown[] }> {
  const [journal, entries] = await Promise.all([readTickEvents(project.root), runLogEntries(project.root, await plansOf(project))]);
  const mine = journal.filter((line) => line.tickId === tickId);
  const result = mine.find((line) => line.type === 'tick-result');
  const detail = {
    tickId,
    entry: entries.find((entry) => entry.tick_id === tickId) ?? null,
    result: result && result.type === 'tick-result' ? result.result : null,
    events: mine.filter((line) => line.type !== 'tick-result'),
  };
  return detail;
}

/** Today's spend per loop against its cap, and spend per UTC day over the last `days` days (oldest first). */
export async function spendByDay(project: LoadedProject, days: number, options: QueryOptions): Promise<SpendReport> {
  const now = options.clock.now();
  const dayList = Array.from({ length: days }, (_, index) => utcDay(now - (days - 1 - index) * 86_400_000));
  const plans = await plansOf(project);
  const perLoop = new Map(plans.map((plan) => [plan.pattern.id, [] as number[]] as const));
  const stores = await storesOf(project, options);
  for (const day of dayList) for (const [id, tokens] of await stores.spentByLoopOn(day, plans)) perLoop.get(id)?.push(tokens);
  const costs = await costByLoopAndDay(stores, new Set(dayList));
  const loops = plans.map((plan): SpendReportLoop => {
    const id = plan.pattern.id;
    const perDay = perLoop.get(id)!;
    const cost = dayList.map((day) => costs.get(`${id}\u0000${day}`) ?? { usd: null, complete: true });
    return {
      id,
      dailyTokenCap: plan.dailyTokenCap,
      spentToday: perDay.at(-1) ?? 0,
      perDay,
      costUsdPerDay: cost.map((entry, index) => entry.usd ?? (perDay[index] === 0 ? 0 : null)),
      costCompletePerDay: cost.map((entry, index) => entry.complete && (entry.usd !== null || perDay[index] === 0)),
    };
  });
  return { day: utcDay(now), days: dayList, loops };
}

/**
 * Dollars per loop and UTC day from the store's spend per tick (`ProjectStores.spendByTick`: the spend journal or the
 * fleet's rows), each tick priced once by `tickCost` as `metrics` prices it: a tick with tokens at no known price makes
 * its day incomplete (the day's dollars a lower bound, null when no tick of it had a price); rehearsals count nothing,
 * as the chart's tokens (`spentByLoopOn`) leave them out.
 */
async function costByLoopAndDay(stores: Pick<ProjectStores, 'spendByTick'>, days: ReadonlySet<string>): Promise<Map<string, { usd: number | null; complete: boolean }>> {
  const { tickCost } = await import('./outcomes/tick-cost.js');
  const spend = await stores.spendByTick();
  const costs = new Map<string, { usd: number | null; complete: boolean }>();
  for (const [tickId, tick] of spend) {
    if (tick.rehearsal || !tick.day || !tick.patternId || !days.has(tick.day)) continue;
    const key = `${tick.patternId}\u0000${tick.day}`;
    const previous = costs.get(key) ?? { usd: null, complete: true };
    const cost = tickCost({ tickId, tokens: tick.tokens }, spend);
    costs.set(key, { usd: cost === null ? previous.usd : (previous.usd ?? 0) + cost, complete: previous.complete && cost !== null });
  }
  return costs;
}

/** An escalated change's current diff and what the gate says about it now. */
export async function inboxDiff(project: LoadedProject, id: string, options: QueryOptions): Promise<{ id: string; paths: string[]; patch: string; gate: GateDecision }> {
  const { findWaiting } = await import('./approval.js');
  const { gitWorkspaceFor } = await import('../composition/wiring.js');
  const { entry, plan, handle } = await findWaiting(project, id);
  const redact = redactorFor(options.env, project.root);
  const workspace = gitWorkspaceFor({ root: project.root, clock: options.clock, env: options.env, redact, worktreesDir: project.settings?.worktreesDir ?? null }, entry.pattern, entry.baseBranch ?? null);
  const diff = await workspace.changes(handle);
  if (!diff.ok) throw new LoopRuntimeError('WORKSPACE_FAILED', `Could not read the kept change ${entry.id}: ${diff.message}`, { fix: `check ${handle.path}, or reject the change.` });
  const paths = changedPaths(diff.changes);
  return { id: entry.id, paths, patch: diff.changes.patch, gate: checkGate(plan.gate, 'commit', paths) };
}
