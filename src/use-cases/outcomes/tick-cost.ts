/**
 * The one place a tick's spend becomes dollars, for every output that shows
 * them: `run`, `status`, `history`, `metrics` and the Action's `cost-usd`.
 * The backend prices each model call when it reports its usage (its `prices`
 * setting, else the list prices of `DEFAULT_PRICES`); the spend journal keeps
 * that cost beside the tokens (read back by `spend-by-tick.ts`); this prices a
 * tick from it and says where the price came from. Pure: the Action's outputs use it.
 * A tick that spent tokens at a price nobody knows costs `null`, never a guess.
 */
import { REHEARSAL_BACKEND } from '../../core/outcomes/rehearsal-backend.js';
// From the core, not backends/shared/usage.ts: `status` prices without loading a backend's code.
import { DEFAULT_PRICES_AS_OF, lookUpPrice, type PriceTable } from '../../core/budget/price-table.js';
import type { ExecutionPlan } from '../../core/plan/execution-plan.js';

/** One tick's spend as the journal has it. `costUsd` is null when any of its tokens has no known price. */
export interface TickSpend {
  tokens: number;
  costUsd: number | null;
  patternId?: string;
  day?: string;
  /** Journalled for the mock backend: a rehearsal, which costs nothing. */
  rehearsal?: boolean;
}

/** Tokens and cost per tick id, as the spend journal has them. */
export type SpendByTick = ReadonlyMap<string, TickSpend>;

/**
 * A tick's cost: its own `costUsd`, else the journal's for its id; a rehearsal or a tick that spent nothing cost 0;
 * otherwise unknown (null).
 *
 * @example
 * ```ts
 * tickCost({ tickId: 't1', tokens: 120 }, new Map([['t1', { tokens: 120, costUsd: 0.0003 }]])); // → 0.0003
 * tickCost({ tickId: 't2', tokens: 120 }, new Map()); // → null
 * ```
 */
export function tickCost(tick: { tickId?: string | null; tokens?: number; costUsd?: number | null; rehearsal?: boolean }, spend?: SpendByTick): number | null {
  if (typeof tick.costUsd === 'number') return tick.costUsd;
  const journal = tick.tickId ? spend?.get(tick.tickId) : undefined;
  if (tick.rehearsal || journal?.rehearsal) return 0;
  if (journal && journal.costUsd !== null) return round(journal.costUsd);
  return (tick.tokens ?? 0) === 0 && (journal?.tokens ?? 0) === 0 ? 0 : null;
}

/** The total of some costs: unknown when any is. */
export function totalCost(costs: ReadonlyArray<number | null>): number | null {
  return costs.some((cost) => cost === null) ? null : round(costs.reduce<number>((sum, cost) => sum + (cost ?? 0), 0));
}

const round = (value: number) => Math.round(value * 1e8) / 1e8;

/** What a loop's ticks are priced by: its backend, model and `prices` setting. */
export interface PriceBasis {
  backend: string;
  model: string | null;
  prices: PriceTable;
  /** The mock standing in for the loop's agent, or a dry run: a rehearsal. */
  rehearsal?: boolean;
}

/** A rehearsal's dollars: none, and said in the word every command uses for it. */
export const REHEARSAL_PRICE_SOURCE = 'rehearsal: the mock backend costs nothing';
/** A loop whose own backend is the mock: its tokens count against its cap, and no model is paid. */
export const MOCK_PRICE_SOURCE = 'mock backend: no model is paid';

/** The basis of a plan's ticks (the backend's `model` setting wins over `model:`, as the composition root merges them). */
export function priceBasisOf(backend: ExecutionPlan['backend'], name = backend.name): PriceBasis {
  const setting = backend.options['model'];
  const model = typeof setting === 'string' && setting !== '' ? setting : backend.model;
  const prices = backend.options['prices'];
  return { backend: name, model, prices: typeof prices === 'object' && prices !== null && !Array.isArray(prices) ? (prices as PriceTable) : {} };
}

/**
 * Where the dollars of one output come from, said once: a rehearsal, the list prices of a dated table, the user's
 * `prices:`, or which model has no price and how to give it one.
 *
 * @example
 * ```ts
 * priceSource({ backend: 'openai', model: 'gpt-4o-mini', prices: {} }, [0.0012]); // → 'gpt-4o-mini at list prices of 2026-11-23'
 * priceSource({ backend: 'claude-code', model: null, prices: {} }, []); // → 'nothing spent yet'
 * priceSource({ backend: 'openai', model: 'my-model', prices: {} }, [null]);
 * // → 'my-model: price unknown — set prices: in the backend settings'
 * ```
 */
export function priceSource(basis: PriceBasis, costs: ReadonlyArray<number | null>): string {
  if (basis.backend === REHEARSAL_BACKEND) return basis.rehearsal ? REHEARSAL_PRICE_SOURCE : MOCK_PRICE_SOURCE;
  const model = basis.model ?? `${basis.backend}'s default model`;
  if (costs.some((cost) => cost === null)) return `${model}: price unknown — set prices: in the backend settings`;
  if (basis.model && lookUpPrice(basis.model, basis.prices)) return `${basis.model} at your prices: (backend settings)`;
  // No model named and nothing spent (a loop that has not run, or whose agent is not installed): no price was used.
  if (!basis.model && costs.every((cost) => cost === 0)) return 'nothing spent yet';
  return `${basis.model ? `${basis.model} ` : ''}at list prices of ${DEFAULT_PRICES_AS_OF}`;
}
