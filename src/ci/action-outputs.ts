/**
 * The outputs of the GitHub Action (action.yml) from `loop-runtime run --json`: `outcome`, `tokens`, `cost-usd`,
 * `pull-request-url`, `escalated`. Pure: JSON in, `$GITHUB_OUTPUT` text out. Read from the JSON, never from prose, so
 * a reworded summary cannot change what a workflow's `if:` sees.
 */
import { loopsInRunOutput } from './ci-summary.js';
import { tickCost, type SpendByTick } from '../use-cases/outcomes/tick-cost.js';

export interface ActionOutputs {
  /** The tick's kind (proposed, escalated, noop, halted, …), or the decision (not-due, lease-held, error); space-separated for several loops; `no-output` without JSON. */
  outcome: string;
  tokens: string;
  /** Empty when a tick spent tokens at a price nobody knows (see `tickCost`): never a made-up number. */
  'cost-usd': string;
  'pull-request-url': string;
  escalated: 'true' | 'false';
}

interface TickLike {
  tickId?: string;
  kind?: string;
  tokens?: number;
  costUsd?: number | null;
  delivery?: { kind?: string; url?: string } | null;
}

function ticksAndActions(output: Record<string, unknown>): Array<{ tick: TickLike | null; action: string }> {
  if (Array.isArray(output.decisions)) {
    return (output.decisions as Array<Record<string, unknown>>).map((decision) => ({ tick: (decision.tick as TickLike | undefined) ?? null, action: String(decision.action ?? 'unknown') }));
  }
  if (Array.isArray(output.ticks)) return (output.ticks as TickLike[]).map((tick) => ({ tick, action: 'ticked' }));
  return [];
}

/**
 * @example
 * ```ts
 * actionOutputs({ pattern: { id: 'ci-sweeper' }, ticks: [{ kind: 'escalated', tokens: 120 }] });
 * // → { outcome: 'escalated', tokens: '120', 'cost-usd': '', 'pull-request-url': '', escalated: 'true' }
 * ```
 */
export function actionOutputs(output: unknown, spend?: SpendByTick): ActionOutputs {
  return actionOutputsWithCost(output, spend).outputs;
}

/** Tokens and cost per tick id, as the spend journal has them (`spendByTick`, what `metrics` and the console read). */
export type { SpendByTick };

/**
 * The outputs, and the ticks whose spend has no known price (the backend's price table has no entry for its model):
 * with any, `cost-usd` is empty and the caller says why.
 */
export function actionOutputsWithCost(output: unknown, spend?: SpendByTick): { outputs: ActionOutputs; priceUnknown: string[] } {
  const outputs = baseOutputs(output);
  if (typeof output !== 'object' || output === null || outputs.outcome === 'error') return { outputs, priceUnknown: [] };
  const ticks = ticksAndActions(output as Record<string, unknown>).flatMap((row) => (row.tick ? [row.tick] : []));
  let total = 0;
  const priceUnknown: string[] = [];
  for (const tick of ticks) {
    const cost = tickCost(tick, spend);
    if (cost === null) priceUnknown.push(tick.tickId ?? '?');
    else total += cost;
  }
  const known = ticks.length > 0 && priceUnknown.length === 0;
  return { outputs: { ...outputs, 'cost-usd': known ? total.toFixed(4) : '' }, priceUnknown };
}

/** The ids of the ticks a run's JSON reports (whose spend `cost-usd` prices). */
export function tickIdsIn(output: unknown): string[] {
  if (typeof output !== 'object' || output === null) return [];
  return ticksAndActions(output as Record<string, unknown>).flatMap((row) => (typeof row.tick?.tickId === 'string' ? [row.tick.tickId] : []));
}

function baseOutputs(output: unknown): ActionOutputs {
  const none: ActionOutputs = { outcome: 'no-output', tokens: '0', 'cost-usd': '', 'pull-request-url': '', escalated: 'false' };
  if (typeof output !== 'object' || output === null) return none;
  const record = output as Record<string, unknown>;
  if (record.error !== undefined || Array.isArray(record.issues)) return { ...none, outcome: 'error' };
  const rows = ticksAndActions(record);
  const outcomes = rows.map((row) => row.tick?.kind ?? row.action);
  const url = rows.map((row) => row.tick?.delivery?.url).find((value): value is string => typeof value === 'string' && value !== '');
  return {
    outcome: outcomes.length ? outcomes.join(' ') : loopsInRunOutput(output).length ? 'unknown' : 'nothing-configured',
    tokens: String(rows.reduce((total, row) => total + (row.tick?.tokens ?? 0), 0)),
    'cost-usd': '',
    'pull-request-url': url ?? '',
    escalated: outcomes.includes('escalated') ? 'true' : 'false',
  };
}

/** `name=value` lines for `$GITHUB_OUTPUT`; a value with a line break (none expected) gets GitHub's heredoc form. */
export function githubOutputLines(outputs: ActionOutputs): string {
  return Object.entries(outputs)
    .map(([name, value]) => (/[\r\n]/.test(value) ? `${name}<<LOOP_RUNTIME_EOF\n${value}\nLOOP_RUNTIME_EOF` : `${name}=${value}`))
    .join('\n')
    .concat('\n');
}
