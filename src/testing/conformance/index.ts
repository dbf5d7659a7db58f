/** Conformance suites every adapter and its memory twin run (vitest). */
export { describeDeliveryConformance } from './delivery.js';
export type { DeliveryFault, DeliveryHarness } from './delivery.js';
