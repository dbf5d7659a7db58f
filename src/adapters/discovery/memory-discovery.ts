/**
 * The Discovery port's memory twin: each probe's raw run (exit code, output,
 * timeout) is scripted by probe name instead of executed, then interpreted by
 * the same pure rules `ProbeDiscovery` uses. Pure, so it runs anywhere.
 */
import type { Discovery, DiscoveryResult } from '../../core/ports/index.js';
import type { ExecutionPlan, ProbeSpec } from '../../core/plan/execution-plan.js';
import { interpretProbe, type ProbeOutcome, type ProbeRun } from '../../core/schedule/interpret-probe.js';
import { redactSecrets } from '../../core/security/redact-secrets.js';
import { combineOutcomes } from './combine-outcomes.js';

/** What a scripted probe "printed": defaults are exit 0 and no output. */
export interface ScriptedProbeRun {
  exitCode?: number;
  stdout?: string;
  stderr?: string;
  /** The probe ran past its timeout. */
  timedOut?: boolean;
}

export interface MemoryDiscoveryOptions {
  /** Runs by probe name. A probe with no script counts as a missing tool (exit 127): unknown, so triage runs. */
  runs?: Readonly<Record<string, ScriptedProbeRun>>;
}

/**
 * @example
 * ```ts
 * const discovery = new MemoryDiscovery({ runs: { 'open-issues': { stdout: '[{"number":3,"title":"Flaky login"}]' } } });
 * const result = await discovery.discover(plan); // { found: true, items: [{ key: 'open-issues#3', … }], … }
 * ```
 */
export class MemoryDiscovery implements Discovery {
  readonly specificationVersion = 'discovery-v1' as const;
  /** Probe names in the order they were asked for, per call. */
  readonly calls: string[][] = [];
  private readonly runs: Readonly<Record<string, ScriptedProbeRun>>;

  constructor(options: MemoryDiscoveryOptions = {}) {
    this.runs = options.runs ?? {};
  }

  async discover(plan: ExecutionPlan): Promise<DiscoveryResult> {
    this.calls.push(plan.earlyExit.probes.map((probe) => probe.name));
    return combineOutcomes(plan.earlyExit.probes.map((probe) => this.outcome(probe)));
  }

  private outcome(probe: ProbeSpec): ProbeOutcome {
    const script = Object.hasOwn(this.runs, probe.name) ? this.runs[probe.name] : undefined;
    const run: ProbeRun = script
      ? { exitCode: script.timedOut ? null : (script.exitCode ?? 0), stdout: script.stdout ?? '', stderr: script.stderr ?? '', timedOut: script.timedOut ?? false }
      : { exitCode: 127, stdout: '', stderr: `${probe.name}: no scripted run`, timedOut: false };
    const outcome = interpretProbe(probe, run);
    return { ...outcome, note: redactSecrets(outcome.note) };
  }
}
