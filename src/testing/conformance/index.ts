/**
 * Conformance suites, one per port (`loop-runtime/testing/conformance`). Each
 * is a vitest `describe` block: call it from a test file with a factory for
 * your adapter, and run the same suite against its memory twin, so the two
 * cannot drift apart.
 */
export { describeStateWriterConformance, sampleTickRecord } from './state-writer.js';
export type { StateWriterConformanceOptions, StateWriterSetup, StateWriterSubject } from './state-writer.js';
export { describeCommandRunnerConformance } from './command-runner.js';
export type { CommandRunnerConformanceOptions, CommandRunnerSetup } from './command-runner.js';
export { describeDiscoveryConformance, discoveryPlan } from './discovery.js';
export type { DiscoveryConformanceOptions, DiscoverySubject, ScriptedProbe, ScriptedProbeRun } from './discovery.js';
export { describeItemLeasesConformance } from './item-leases.js';
export type { ItemLeasesConformanceOptions, ItemLeasesSubject } from './item-leases.js';
