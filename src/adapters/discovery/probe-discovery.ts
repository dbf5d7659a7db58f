/**
 * Runs a plan's discovery probes (`plan.earlyExit.probes`) with `sh -c` in
 * the repository root before any model call. Probes are trusted commands
 * from the project's own configuration (or our catalogue's defaults), so
 * they see the process environment (e.g. GH_TOKEN for `gh`).
 *
 * The tick ends as a no-op only when every probe ran fine and found nothing;
 * a probe that cannot tell (missing tool, error, timeout) lets triage run.
 */
import type { Discovery, DiscoveryResult } from '../../core/ports/index.js';
import type { ExecutionPlan, ProbeSpec } from '../../core/plan/execution-plan.js';
import { interpretProbe, type ProbeOutcome } from '../../core/schedule/interpret-probe.js';
import { redactSecrets } from '../../core/security/redact-secrets.js';
import { combineOutcomes } from './combine-outcomes.js';

export { combineOutcomes } from './combine-outcomes.js';

export interface ProbeDiscoveryOptions {
  /** Repository root: the probes' working directory. */
  root: string;
  /** Environment for the probes (default: this process's). */
  env?: Record<string, string | undefined>;
  /** Output cap per stream (default 1 MiB); more than this counts as "unknown". */
  maxOutputBytes?: number;
}

/**
 * @example
 * ```ts
 * const discovery = new ProbeDiscovery({ root: '/repo' });
 * const result = await discovery.discover(plan); // { found: false, notes: ['failing-ci-runs: nothing'], items: [] }
 * ```
 */
export class ProbeDiscovery implements Discovery {
  readonly specificationVersion = 'discovery-v1' as const;
  private readonly options: ProbeDiscoveryOptions;

  constructor(options: ProbeDiscoveryOptions) {
    this.options = options;
  }

  async discover(plan: ExecutionPlan): Promise<DiscoveryResult> {
    const outcomes = await Promise.all(plan.earlyExit.probes.map((probe) => this.runProbe(probe)));
    return combineOutcomes(outcomes);
  }

  /** Runs one probe and interprets it; never throws. */
  async runProbe(probe: ProbeSpec): Promise<ProbeOutcome> {
    // Loaded with the first probe, not with the runtime: a tick whose plan has no probes never needs it.
    const { execa } = await import('execa');
    const result = await execa('sh', ['-c', probe.command], {
      cwd: this.options.root,
      env: this.options.env ?? process.env,
      extendEnv: this.options.env === undefined,
      timeout: probe.timeoutMs,
      maxBuffer: this.options.maxOutputBytes ?? 1024 * 1024,
      reject: false,
      stdin: 'ignore',
      forceKillAfterDelay: 2_000,
    });
    const outcome = interpretProbe(probe, {
      exitCode: result.exitCode ?? null,
      stdout: typeof result.stdout === 'string' ? result.stdout : '',
      stderr: typeof result.stderr === 'string' ? result.stderr : '',
      timedOut: result.timedOut,
      signal: result.signal ?? null,
    });
    if (result.isMaxBuffer) return { status: 'unknown', note: `${probe.name}: unknown (output over the ${this.options.maxOutputBytes ?? 1024 * 1024}-byte cap)` };
    return { ...outcome, note: redactSecrets(outcome.note) } as ProbeOutcome;
  }
}
