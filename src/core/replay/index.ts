export { compareTicks, summarizeTick } from './compare-ticks.js';
export type { FactDifference, TickComparison, TickFact, TickFacts } from './compare-ticks.js';
export { jsonDifferences, shortJson } from './json-differences.js';
export type { JsonDifference } from './json-differences.js';
