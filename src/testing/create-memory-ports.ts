import { MockBackend, type MockBackendOptions } from '../../backends/mock/index.js';
import { MemoryAttemptLedger } from '../adapters/attempt-ledger/memory-attempt-ledger.js';
import { MemoryBudgetLedger } from '../adapters/budget-ledger/memory-budget-ledger.js';
import { MemoryKillSwitch } from '../adapters/kill-switch/memory-kill-switch.js';
import { MemoryStateWriter, type MemoryStateWriterOptions } from '../adapters/state-writer/memory-state-writer.js';
import { MemoryWorkspace } from '../adapters/workspace/memory-workspace.js';
import { BudgetBreaker } from '../core/budget/budget-breaker.js';
import type { EnginePorts } from '../core/engine/engine-ports.js';
import { SequentialIds } from '../core/engine/sequential-ids.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import type { AttemptRecord } from '../core/ports/index.js';
import { FixedClock } from './fixed-clock.js';
import { ScriptedCommandRunner, type ScriptedCommandRunnerOptions } from './scripted-command-runner.js';

export interface MemoryPortsOptions {
  /** Takes the daily cap and degrade line from the plan (else `dailyTokenCap`, default 100,000). */
  plan?: Pick<ExecutionPlan, 'dailyTokenCap' | 'budget'>;
  dailyTokenCap?: number;
  /** Start of the FixedClock (default 2026-11-21T08:00:00Z), or a clock to share. */
  clock?: FixedClock | number | string;
  /** Milliseconds the clock moves on every read (default 0: time stands still unless advanced). */
  clockStepMs?: number;
  /** Base files of the MemoryWorkspace (default one file, src/example.ts, that the mock backend edits). */
  files?: Record<string, string>;
  /** Options of the default MockBackend. */
  backend?: MockBackendOptions;
  /** Spend already on the budget ledger, `{ 'YYYY-MM-DD': { patternId: tokens } }`. */
  seedSpend?: Record<string, Record<string, number>>;
  /** Attempt history already on the ledger. */
  attempts?: readonly AttemptRecord[];
  state?: MemoryStateWriterOptions;
  /** Adds a ScriptedCommandRunner (every command passes unless scripted otherwise). Absent: no runner. */
  commands?: ScriptedCommandRunnerOptions;
}

/** A complete set of in-memory ports, typed concretely so tests can inspect each one. */
export interface MemoryPorts extends EnginePorts {
  backend: MockBackend;
  state: MemoryStateWriter;
  workspace: MemoryWorkspace;
  attempts: MemoryAttemptLedger;
  killSwitch: MemoryKillSwitch;
  clock: FixedClock;
  ids: SequentialIds;
  /** The ledger under `budget`, for inspecting recorded spend. */
  budgetLedger: MemoryBudgetLedger;
  commands?: ScriptedCommandRunner;
}

/**
 * Every port `LoopEngine` requires, in memory: spread it and override what
 * your test is about. Nothing touches the disk, the network or the wall clock.
 *
 * @example
 * ```ts
 * const plan = buildPlan(pattern, { level: 'L2', overrides: { verify: ['npm test'] } });
 * const ports = createMemoryPorts({ plan, commands: {} });
 * const engine = new LoopEngine(plan, { ...ports, backend: myBackend });
 * await engine.tick();
 * ports.budgetLedger.entries; // spend recorded per phase
 * ```
 */
export function createMemoryPorts(options: MemoryPortsOptions = {}): MemoryPorts {
  const clock = options.clock instanceof FixedClock ? options.clock : new FixedClock(options.clock ?? '2026-11-21T08:00:00Z', options.clockStepMs ?? 0);
  const budgetLedger = new MemoryBudgetLedger({ seed: options.seedSpend ?? {} });
  const cap = options.plan?.dailyTokenCap ?? options.dailyTokenCap ?? 100_000;
  const ports: MemoryPorts = {
    backend: new MockBackend(options.backend),
    state: new MemoryStateWriter(options.state),
    budget: new BudgetBreaker(cap, { ledger: budgetLedger, degradeAtFraction: options.plan?.budget.degradeAtFraction ?? 0.8 }),
    budgetLedger,
    workspace: new MemoryWorkspace({ files: options.files ?? { 'src/example.ts': 'export const answer = 42;\n' } }),
    attempts: new MemoryAttemptLedger(options.attempts),
    killSwitch: new MemoryKillSwitch(),
    clock,
    ids: new SequentialIds(clock),
  };
  if (options.commands) ports.commands = new ScriptedCommandRunner(clock, options.commands);
  return ports;
}
