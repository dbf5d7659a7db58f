/**
 * The Discovery contract as a test suite. A tick ends as a zero-token no-op
 * only when every probe ran fine and found nothing; a probe that cannot tell
 * (missing tool, timeout, unreadable output) means "found" so triage runs.
 * Notes come one per probe in plan order, items are deduplicated by key, and
 * secrets never reach a note.
 *
 * The factory gets scripted probes (what each prints, its exit code, whether it
 * hangs) and returns a discovery that behaves that way for real — a shell
 * command for `ProbeDiscovery`, a script for `MemoryDiscovery`.
 *
 * @example
 * ```ts
 * describeDiscoveryConformance('MemoryDiscovery', {
 *   async create(probes) {
 *     const runs = Object.fromEntries(probes.map((probe) => [probe.name, probe.run]));
 *     return { discovery: new MemoryDiscovery({ runs }), plan: discoveryPlan(probes.map(toProbeSpec)) };
 *   },
 * });
 * ```
 */
import { describe, expect, it } from 'vitest';
import type { Pattern } from '../../core/config/schemas.js';
import type { ExecutionPlan, ProbeSpec } from '../../core/plan/execution-plan.js';
import { buildPlan } from '../../core/plan/build-plan.js';
import type { Discovery } from '../../core/ports/index.js';
import type { ScriptedProbeRun } from '../../adapters/discovery/memory-discovery.js';

export type { ScriptedProbeRun } from '../../adapters/discovery/memory-discovery.js';

/** A probe and how it behaves when run. `run.timedOut` means it hangs past `timeoutMs`. */
export interface ScriptedProbe {
  name: string;
  found: ProbeSpec['found'];
  timeoutMs: number;
  run: ScriptedProbeRun;
}

export interface DiscoverySubject {
  discovery: Discovery;
  /** A plan whose probes are the scripted ones, in the same order (see `discoveryPlan`). */
  plan: ExecutionPlan;
  dispose?(): Promise<void>;
}

export interface DiscoveryConformanceOptions {
  create(probes: readonly ScriptedProbe[]): Promise<DiscoverySubject>;
}

const PATTERN: Pattern = {
  id: 'conformance-loop',
  name: 'Conformance Loop',
  file: 'conformance-loop.md',
  goal: 'Exercise a port',
  cadence: '1d',
  risk: 'low',
  tools: [],
  skills: [],
  state: 'STATE.md',
  phases: ['report'],
  human_gates: [],
  week_one_mode: 'L1',
  cost: { tokens_noop: 1_000, tokens_report: 10_000, tokens_action: 100_000, suggested_daily_cap: 100_000, early_exit_required: true },
};

/** A real ExecutionPlan (via `buildPlan`) whose probes run `commands[i]` for `probes[i]`. */
export function discoveryPlan(probes: readonly { name: string; found: ProbeSpec['found']; timeoutMs: number; command: string }[]): ExecutionPlan {
  return buildPlan(PATTERN, {
    level: 'L1',
    overrides: { probes: probes.map((probe) => ({ name: probe.name, command: probe.command, found: probe.found, timeoutSeconds: probe.timeoutMs / 1000 })) },
  });
}

const TOKEN = 'ghp_conformanceSecretToken0123456789abcd';
const probe = (name: string, found: ProbeSpec['found'], run: ScriptedProbeRun, timeoutMs = 10_000): ScriptedProbe => ({ name, found, run, timeoutMs });

export function describeDiscoveryConformance(name: string, options: DiscoveryConformanceOptions): void {
  describe(`Discovery conformance: ${name}`, () => {
    async function discover(probes: readonly ScriptedProbe[]) {
      const subject = await options.create(probes);
      try {
        expect(subject.plan.earlyExit.probes.map((entry) => entry.name)).toEqual(probes.map((entry) => entry.name));
        return { version: subject.discovery.specificationVersion, result: await subject.discovery.discover(subject.plan) };
      } finally {
        await subject.dispose?.();
      }
    }

    it('declares discovery-v1', async () => {
      expect((await discover([probe('empty', 'non-empty', {})])).version).toBe('discovery-v1');
    });

    it('finds nothing only when every probe ran fine and saw nothing; one note per probe, in plan order', async () => {
      const { result } = await discover([
        probe('no-lines', 'non-empty', { stdout: '\n  \n' }),
        probe('no-entries', 'json-entries', { stdout: '[]' }),
        probe('red', 'exit-zero', { exitCode: 1 }),
      ]);
      expect(result).toEqual({ found: false, notes: ['no-lines: nothing', 'no-entries: nothing', 'red: nothing (exit 1)'], items: [] });
    });

    it('passes JSON entries on as untrusted items', async () => {
      const issues = JSON.stringify([{ number: 3, title: 'Flaky  login\ttest', url: 'https://example.test/o/r/issues/3' }]);
      const { result } = await discover([probe('issues', 'json-entries', { stdout: issues }), probe('quiet', 'non-empty', {})]);
      expect(result.found).toBe(true);
      expect(result.notes).toEqual(['issues: found 1 entry', 'quiet: nothing']);
      expect(result.items).toEqual([{ key: 'issue#3', title: 'Flaky login test', untrustedDetail: expect.stringContaining('"number":3') }]);
    });

    it.each([
      ['a missing tool (exit 127)', probe('gh', 'json-entries', { exitCode: 127, stderr: 'gh: command not found' }), /^gh: unknown \(a tool it needs is not installed/],
      ['a timeout', probe('slow', 'non-empty', { timedOut: true }, 300), /^slow: unknown \(timed out/],
      ['output that is not JSON', probe('garbled', 'json-entries', { stdout: '<html>rate limited</html>' }), /^garbled: unknown \(output is not JSON/],
      ['a failing non-empty probe', probe('broken', 'non-empty', { exitCode: 2, stdout: 'partial' }), /^broken: unknown \(exit 2/],
    ])('counts %s as unknown, so triage runs', async (_what, unknown, note) => {
      const { result } = await discover([probe('quiet', 'non-empty', {}), unknown]);
      expect(result.found).toBe(true);
      expect(result.items).toEqual([]);
      expect(result.notes[0]).toBe('quiet: nothing');
      expect(result.notes[1]).toMatch(note);
    });

    it('deduplicates items by key across probes, first probe first', async () => {
      const first = JSON.stringify([{ number: 1, title: 'From the first probe', url: 'https://example.test/o/r/issues/1' }, { number: 2, title: 'Two' }]);
      const second = JSON.stringify([{ number: 1, title: 'From the second probe', url: 'https://example.test/o/r/issues/1' }]);
      const { result } = await discover([probe('a', 'json-entries', { stdout: first }), probe('b', 'json-entries', { stdout: second })]);
      expect(result.items.map((item) => [item.key, item.title])).toEqual([
        ['issue#1', 'From the first probe'],
        ['a#2', 'Two'],
      ]);
    });

    it('never puts a token from a probe’s output into its notes', async () => {
      const { result } = await discover([probe('leaky', 'non-empty', { exitCode: 3, stderr: `auth failed for ${TOKEN}` })]);
      expect(result.notes[0]).toMatch(/^leaky: unknown \(exit 3/);
      expect(result.notes.join('\n')).not.toContain(TOKEN);
    });
  });
}
