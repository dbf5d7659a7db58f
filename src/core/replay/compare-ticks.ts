/**
 * What a team asks of a replay: did the tick now decide, verify, gate and end
 * the way it did when it was recorded? `summarizeTick` reads those facts from
 * a TickResult; `compareTicks` lists the ones that changed and every other
 * place the results differ. Pure.
 */
import type { TickResult } from '../engine/tick-result.js';
import { jsonDifferences, type JsonDifference } from './json-differences.js';

/** The facts of a tick a replay compares first. `null`: the tick did not get that far. */
export interface TickFacts {
  /** proposed, escalated, rejected, report, noop, halted, paused, failed. */
  kind: string;
  /** The triage decision (act, report, noop). */
  decision: string | null;
  /** The verifier's verdict (APPROVE, REJECT, ESCALATE_HUMAN). */
  verdict: string | null;
  /** The gate's answer: `allowed (ok)` or `escalated (denylist): …`. */
  gate: string | null;
  item: string | null;
  /** Changed paths, comma-separated. */
  changes: string | null;
  /** Why it escalated, was rejected, halted or failed. */
  reason: string | null;
  tokens: number;
}

export type TickFact = keyof TickFacts;

/** One fact that changed. */
export interface FactDifference {
  fact: TickFact;
  recorded: string | number | null;
  now: string | number | null;
}

export interface TickComparison {
  identical: boolean;
  /** The facts that changed, in TickFacts order. */
  facts: FactDifference[];
  /** Every other place the two results differ (key paths into the TickResult), at most 30. */
  details: JsonDifference[];
}

const FACTS: readonly TickFact[] = ['kind', 'decision', 'verdict', 'gate', 'item', 'changes', 'reason', 'tokens'];

/**
 * @example
 * ```ts
 * summarizeTick(result); // → { kind: 'proposed', decision: 'act', verdict: 'APPROVE', gate: 'allowed (ok)', … }
 * ```
 */
export function summarizeTick(result: TickResult): TickFacts {
  const triage = result.steps.find((step) => step.phase === 'triage' && step.note.startsWith('triage decision:'));
  const decision = triage ? (/^triage decision: (\w+)/.exec(triage.note)?.[1] ?? null) : null;
  const verification = 'verification' in result ? result.verification : null;
  const gate = 'gate' in result && result.gate ? `${result.gate.allowed ? 'allowed' : 'escalated'} (${result.gate.trigger})${result.gate.allowed ? '' : `: ${result.gate.reason}`}` : null;
  const item = 'item' in result ? result.item.key : null;
  const changes = 'changes' in result ? result.changes.map((change) => change.path).join(', ') : null;
  const reason =
    result.kind === 'escalated' ? result.reason
    : result.kind === 'rejected' ? result.reasons.join('; ')
    : result.kind === 'halted' ? `${result.reason}: ${result.message}`
    : result.kind === 'failed' ? `${result.phase}: ${result.message}`
    : result.kind === 'report' && result.degraded ? (result.degradedReason ?? 'degraded')
    : null;
  return { kind: result.kind, decision, verdict: verification?.verdict ?? null, gate, item, changes, reason, tokens: result.tokens };
}

/**
 * Compares the recorded result with the replayed one (`null`: the replay
 * stopped before the tick ended).
 *
 * @example
 * ```ts
 * compareTicks(recorded, replayed).facts;
 * // → [{ fact: 'kind', recorded: 'proposed', now: 'escalated' }, { fact: 'gate', … }]
 * ```
 */
export function compareTicks(recorded: TickResult, replayed: TickResult | null): TickComparison {
  const before = summarizeTick(recorded);
  if (!replayed) {
    return { identical: false, facts: [{ fact: 'kind', recorded: before.kind, now: null }], details: [] };
  }
  const after = summarizeTick(replayed);
  const facts = FACTS.filter((fact) => before[fact] !== after[fact]).map((fact) => ({ fact, recorded: before[fact], now: after[fact] }));
  const details = jsonDifferences(recorded, replayed, 30);
  return { identical: facts.length === 0 && details.length === 0, facts, details };
}
