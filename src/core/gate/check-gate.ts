/**
 * gate.yaml semantics, identical to `loop-gate check`: the denylist first,
 * then the file count, then (for auto-merge only) the allowlist. Globs are
 * minimatch with `dot: true`, so `**\/secrets/**` also catches `.secrets/`.
 *
 * Pure: the paths come from the workspace's own diff, never from the agent.
 */
import { minimatch } from 'minimatch';
import type { GatePolicy } from '../plan/execution-plan.js';

export { DEFAULT_GATE_POLICY } from './default-policy.js';

export const GATE_ACTIONS = ['commit', 'merge', 'auto-merge'] as const;
export type GateAction = (typeof GATE_ACTIONS)[number];

export type GateTrigger = 'ok' | 'denylist' | 'file-count' | 'not-allowlisted';

export interface GateDecision {
  allowed: boolean;
  trigger: GateTrigger;
  reason: string;
  matchedPaths: string[];
}

const matchesAny = (path: string, globs: readonly string[]): boolean =>
  globs.some((glob) => minimatch(path, glob, { dot: true }));

/**
 * @example
 * ```ts
 * checkGate({ denylist: ['.env'], maxFiles: 10, autoMergeAllowlist: ['docs/**'], source: 'gate.yaml' },
 *           'auto-merge', ['docs/intro.md']); // → { allowed: true, trigger: 'ok', … }
 * ```
 */
export function checkGate(policy: Pick<GatePolicy, 'denylist' | 'maxFiles' | 'autoMergeAllowlist'>, action: GateAction, paths: readonly string[]): GateDecision {
  const denied = paths.filter((path) => matchesAny(path, policy.denylist));
  if (denied.length > 0) {
    return {
      allowed: false,
      trigger: 'denylist',
      reason: `${denied.length} path(s) match the denylist: ${denied.join(', ')}. Escalating for human review.`,
      matchedPaths: denied,
    };
  }
  if (policy.maxFiles !== null && policy.maxFiles !== undefined && paths.length > policy.maxFiles) {
    return {
      allowed: false,
      trigger: 'file-count',
      reason: `${paths.length} changed file(s) exceeds the max-files threshold (${policy.maxFiles}). Escalating for human review.`,
      matchedPaths: [...paths],
    };
  }
  if (action === 'auto-merge') {
    const outside = paths.filter((path) => !matchesAny(path, policy.autoMergeAllowlist));
    if (outside.length > 0) {
      return {
        allowed: false,
        trigger: 'not-allowlisted',
        reason: `${outside.length} path(s) are not on the auto-merge allowlist: ${outside.join(', ')}. Escalating for human review.`,
        matchedPaths: outside,
      };
    }
  }
  return { allowed: true, trigger: 'ok', reason: 'Within policy — cleared to proceed.', matchedPaths: [] };
}
