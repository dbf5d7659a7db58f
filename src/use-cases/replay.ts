/**
 * `loop-runtime replay <file>`: re-runs a recorded tick offline through the
 * current engine — no model, no key, no network, no git, nothing written.
 * The plan is the repository's *current* configuration (LOOP.md, gate.yaml,
 * level), the world is the recording (every port answer), so a changed gate
 * shows up as a changed outcome. The report says which facts changed
 * (decision, verdict, gate, outcome…), where the result differs, and which
 * port calls no longer line up.
 */
import { LoopEngine } from '../core/engine/loop-engine.js';
import type { TickResult } from '../core/engine/tick-result.js';
import { ExitCode } from '../core/errors.js';
import type { Level } from '../core/config/schemas.js';
import type { Diagnostic } from '../core/config/diagnostics.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import { compareTicks, summarizeTick, type FactDifference, type TickFacts } from '../core/replay/compare-ticks.js';
import { jsonDifferences, type JsonDifference } from '../core/replay/json-differences.js';
import type { LoadedProject } from '../project/load-project.js';
import { redactorFor } from '../composition/wiring.js';
import { readRecording, type Recording } from '../replay/recording-file.js';
import { worldPorts, type CallDifference } from '../replay/world-ports.js';

export interface ReplayReport {
  file: string;
  loop: string;
  recordedAt: string;
  backend: string;
  /** `current`: the repository's configuration now; `recorded`: the plan saved in the recording. */
  configuration: 'current' | 'recorded';
  /** Where the plan replayed differs from the recorded one: what the team changed since. */
  planChanges: JsonDifference[];
  recorded: TickFacts;
  /** `null` when the replay stopped before the tick ended. */
  replayed: TickFacts | null;
  facts: FactDifference[];
  /** Other places the two TickResults differ. */
  details: JsonDifference[];
  /** Port calls that no longer line up (argument changes are listed but do not make a replay differ on their own). */
  calls: CallDifference[];
  /** Why the replay stopped early: the engine asked a question the recording cannot answer. */
  stopped: string | null;
  identical: boolean;
  /** 0 identical, 6 (`replayDiffers`) otherwise. */
  exitCode: number;
}

export interface ReplayOptions {
  env: Record<string, string | undefined>;
  /** Replay under the plan saved in the recording instead of the current configuration. */
  recordedPlan?: boolean;
  /** Replay at this level instead of the configured one. */
  level?: Level;
}

/** The plan to replay under, or the configuration's issues. */
async function planFor(project: LoadedProject, recording: Recording, options: ReplayOptions): Promise<{ ok: true; plan: ExecutionPlan; instructions: unknown } | { ok: false; issues: Diagnostic[] }> {
  const recorded = recording.history.plan;
  if (options.recordedPlan) return { ok: true, plan: options.level ? { ...recorded, level: options.level } : recorded, instructions: recording.history.data.instructions };
  const { resolvePlan } = await import('../project/load-project.js');
  // The backend is part of the recorded world: the plan names the one whose answers are replayed.
  const resolved = await resolvePlan(project, recording.loop, { backend: recorded.backend.name, ...(options.level ? { level: options.level } : {}) });
  if (!resolved.ok) return resolved;
  let plan = { ...resolved.plan, backend: recorded.backend };
  // A dry run runs no project commands (create-runtime.ts does the same): its recording holds none to answer.
  if (recording.dryRun) plan = { ...plan, phases: { ...plan.phases, verify: { ...plan.phases.verify, commands: [] } } };
  const { loadInstructions } = await import('../project/load-instructions.js');
  return { ok: true, plan, instructions: await loadInstructions(project, recording.loop) };
}

/**
 * @example
 * ```ts
 * const report = await replayRecording(project, 'loops/daily-triage/recordings/bug-1.json', { env: process.env });
 * if (!report.ok) throw new Error('configuration problems');
 * report.value.exitCode; // 0 identical, 6 differs
 * report.value.facts;    // [{ fact: 'kind', recorded: 'proposed', now: 'escalated' }, …]
 * ```
 */
export async function replayRecording(project: LoadedProject, file: string, options: ReplayOptions): Promise<{ ok: true; value: ReplayReport } | { ok: false; issues: Diagnostic[] }> {
  const recording = await readRecording(file);
  const planned = await planFor(project, recording, options);
  if (!planned.ok) return planned;
  const world = worldPorts(recording.history, { redact: redactorFor(options.env, project.root) });
  const ports = { ...world.ports, ...(planned.instructions ? { instructions: planned.instructions as never } : {}), ...(recording.observed ? { observer: () => {} } : {}) };
  let replayed: TickResult | null = null;
  let stopped: string | null = null;
  try {
    replayed = await new LoopEngine(planned.plan, ports).tick();
  } catch (error) {
    stopped = error instanceof Error ? error.message : String(error);
  }
  const recordedResult = recording.history.result;
  const comparison = compareTicks(recordedResult, replayed);
  const calls = world.differences();
  const identical = comparison.identical && !stopped && calls.every((difference) => difference.kind === 'arguments');
  return {
    ok: true,
    value: {
      file,
      loop: recording.loop,
      recordedAt: recording.recordedAt,
      backend: recording.backend,
      configuration: options.recordedPlan ? 'recorded' : 'current',
      planChanges: jsonDifferences(recording.history.plan, planned.plan, 20, '', { wholeArrays: true }),
      recorded: summarizeTick(recordedResult),
      replayed: replayed ? summarizeTick(replayed) : null,
      facts: comparison.facts,
      details: comparison.details,
      calls,
      stopped,
      identical,
      exitCode: identical ? ExitCode.ok : ExitCode.replayDiffers,
    },
  };
}
