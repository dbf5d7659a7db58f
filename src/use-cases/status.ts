/**
 * What `status` reports: per configured loop, today's spend against its cap
 * (UTC day), whether it is paused and by what, and its last runs from the
 * run log. Reads only; every reader is the adapter the tick itself uses.
 */
import { join } from 'node:path';
import { utcDay } from '../core/budget/utc-day.js';
import type { Clock, LoopHalt, PauseSource } from '../core/ports/index.js';
import type { RunLogEntry } from '../core/state/run-log.js';
import type { ProjectStores } from '../composition/stores/project-stores.js';
import { circuitReader, type OpenCircuit } from './circuit-report.js';
import { resolvePlan, type LoadedProject } from '../project/load-project.js';
import { describeBackendChoice, type BackendChoice } from '../composition/backend-choice.js';
import { RECOVERY_LOG, recoveriesIn, type RecoveryRecord } from '../adapters/recovery/recovery-log.js';
import { fileSnapshot } from '../adapters/fs/file-snapshot.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import { priceBasisOf, priceSource, tickCost, totalCost, type SpendByTick } from './outcomes/tick-cost.js';

export interface LoopStatus {
  id: string;
  name: string;
  level: string;
  spentToday: number;
  /** Today's mock rehearsal spend (`--backend mock`), not counted against a real backend's cap; 0 for a mock loop. */
  rehearsalSpentToday: number;
  dailyTokenCap: number;
  /** Today's spend (`spentToday`'s ticks) in USD: null when a tick's price is unknown (see `priceSource`). */
  costUsd: number | null;
  /** What priced `costUsd`: the list prices' date, the user's `prices:`, or the model without a price. */
  priceSource: string;
  paused: boolean;
  pausedBy?: string;
  /** A halt that needs a human (backend stopped, budget overrun): every tick stops until `loop-runtime resume <id>`. */
  halted?: LoopHalt;
  /** Every form of the kill switch set now (who and why when the store keeps them), the first one holds. */
  pauses: PauseSource[];
  /** The circuit breaker, when open: every tick halts `circuit-open` until `loop-runtime resume <id>`. */
  circuit?: OpenCircuit;
  /** What lets the loop run again when a halt, an open circuit or its own pause stops it. */
  fix?: string;
  stateFile: string;
  /** The backend a real tick would run (null: none installed) and why. */
  backend: { name: string | null; reason: string; fix?: string };
  lastRuns: RunLogEntry[];
  /** What tick starts recovered after a process was killed mid-tick, newest first (`.loop-runtime/recovery.jsonl`). */
  recoveries: RecoveryRecord[];
  /** Verified commits of this loop whose delivery failed (retry: `loop-runtime deliver <id>`). */
  deliveryFailed: Array<{ id: string; itemKey: string; branch: string; reason: string }>;
}

export interface LoopStatusReport {
  day: string;
  root: string;
  /** Where spend, attempts and leases are kept: files, or the fleet's Postgres (no password). */
  store: string;
  loops: LoopStatus[];
}

export async function loopStatus(project: LoadedProject, options: { clock: Clock; env: Record<string, string | undefined>; stores?: ProjectStores }): Promise<LoopStatusReport> {
  const stores = options.stores ?? (await import('../composition/stores/file-stores.js')).fileStores(project, options.clock);
  const day = utcDay(options.clock.now());
  // Each file is read once for the whole report (the kill switch reads the run log and the state file too).
  const files = fileSnapshot();
  const readOrEmpty = (path: string) => {
    try {
      return files.read(path) ?? '';
    } catch {
      return ''; // A report, not state: an unreadable deliveries or recovery log shows nothing, as before.
    }
  };
  // Failed deliveries are `"kind": "failed"` records of the delivery ledger; on files, without one in deliveries.json,
  // the delivery code (git, the ledger's schema) is not loaded at all — `status` stays a quick read.
  const deliveries = readOrEmpty(join(project.root, '.loop-runtime', 'deliveries.json'));
  const recoveryLog = readOrEmpty(join(project.root, RECOVERY_LOG));
  // On the fleet store the ledger is a row in Postgres (already open for the spend): asked there.
  const sharedLedger = stores.deliveryLedger();
  const stranded = sharedLedger || deliveries.includes('"failed"') ? await (await import('./deliver.js')).listStranded(project.root, undefined, sharedLedger) : [];
  const circuits = circuitReader(stores);
  // Dollars from the store's spend (the file journal or the Postgres rows), priced once by tick-cost.ts.
  const spend = await stores.spendByTick({ day }).catch(() => null);
  const loops: LoopStatus[] = [];
  for (const id of project.configuredLoops) {
    const resolved = await resolvePlan(project, id);
    if (!resolved.ok) continue;
    const plan = resolved.plan;
    // Parsed once for the report and the kill switch, and once for every loop sharing the run log.
    const runLog = (await files.readRunLog(join(project.root, plan.files.runLog))) ?? [];
    // The spend its configured backend is held to (mock rehearsal spend is not counted for a real backend),
    // everything including rehearsals, and the pause (through the report's snapshot of the run log and state file).
    const killSwitch = stores.killSwitch(plan, { env: options.env, readText: files.readText, readRunLog: files.readRunLog });
    const [spentToday, everythingElse, halt, pauses, circuit] = await Promise.all([
      stores.budgetLedger(plan, plan.backend.name).spentOn(day, id),
      plan.backend.name === 'mock' ? null : stores.budgetLedger(plan, 'mock').spentOn(day, id),
      killSwitch.activeHalt(),
      killSwitch.sources(),
      circuits(plan),
    ]);
    const resumable = halt || circuit || pauses.some((source) => source.loop === id);
    const recoveries = recoveriesIn(recoveryLog, id, 3);
    const everything = everythingElse ?? spentToday;
    const backend = backendOf(describeBackendChoice(plan, project.root, options.env));
    loops.push({
      id,
      name: plan.pattern.name,
      level: plan.level,
      spentToday,
      rehearsalSpentToday: everything - spentToday,
      dailyTokenCap: plan.dailyTokenCap,
      ...costToday(spend, plan, backend.name, day),
      paused: pauses.length > 0,
      ...(pauses[0] ? { pausedBy: pauses[0].source } : {}),
      ...(halt ? { halted: halt } : {}),
      pauses,
      ...(circuit ? { circuit } : {}),
      ...(resumable ? { fix: `loop-runtime resume ${id}` } : {}),
      stateFile: plan.files.state,
      backend,
      lastRuns: runLog.filter((entry) => entry.pattern === id).slice(-5).reverse(),
      recoveries,
      deliveryFailed: stranded.filter((item) => item.pattern === id).map((item) => ({ id: item.id, itemKey: item.itemKey, branch: item.branch, reason: item.reason })),
    });
  }
  return { day, root: project.root, store: stores.description, loops };
}

/** Today's priced spend of one loop's real (not rehearsal) ticks, and what priced it. */
function costToday(spend: SpendByTick | null, plan: ExecutionPlan, backend: string | null, day: string): { costUsd: number | null; priceSource: string } {
  if (!spend) return { costUsd: null, priceSource: 'cost not read: the spend could not be read' };
  const today = [...spend].filter(([, tick]) => tick.day === day && tick.patternId === plan.pattern.id && !tick.rehearsal);
  const costs = today.map(([tickId, tick]) => tickCost({ tickId, tokens: tick.tokens }, spend));
  return { costUsd: totalCost(costs), priceSource: priceSource(priceBasisOf(plan.backend, backend ?? plan.backend.name), costs) };
}

function backendOf(choice: BackendChoice): LoopStatus['backend'] {
  return { name: choice.backend, reason: choice.reason, ...(choice.fix ? { fix: choice.fix } : {}) };
}
