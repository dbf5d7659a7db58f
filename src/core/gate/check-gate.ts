/**
 * gate.yaml semantics, identical to `loop-gate check`: the denylist first,
 * then the file count, then (for auto-merge only) the allowlist. Globs are
 * minimatch with `dot: true`, so `**\/secrets/**` also catches `.secrets/`.
 *
 * Pure: the paths come from the workspace's own diff, never from the agent.
 */
import { minimatch } from 'minimatch';
import type { GatePolicy } from '../plan/execution-plan.js';
import { memoByString } from '../text/memo-by-string.js';

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

/**
 * Per glob list (a plan's denylist, its allowlist), whether a path matches any: each tick asks about the same
 * paths. Remembered with a copy of the globs, so a list changed in place is matched afresh, never by stale answers.
 */
const MATCHERS = new WeakMap<readonly string[], { globs: readonly string[]; matches: (path: string) => boolean }>();

function matchesAny(path: string, globs: readonly string[]): boolean {
  let known = MATCHERS.get(globs);
  if (!known || known.globs.length !== globs.length || known.globs.some((glob, index) => glob !== globs[index])) {
    const copy = [...globs];
    known = { globs: copy, matches: memoByString((candidate) => copy.some((glob) => minimatch(candidate, glob, { dot: true }))) };
    MATCHERS.set(globs, known);
  }
  return known.matches(path);
}

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
