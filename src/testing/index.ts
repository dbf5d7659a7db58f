/**
 * Test doubles for testing your own loops: a scripted mock backend that
 * records its calls, in-memory state/budget/attempts/workspace, a kill switch
 * you can flip, and a clock that only moves when told to.
 */
export { createMockBackend, MockBackend, MOCK_SCENARIOS } from '../../backends/mock/index.js';
export type { MockBackendOptions, MockCall, MockScenario } from '../../backends/mock/index.js';
export { FixedClock } from './fixed-clock.js';
export { MemoryStateWriter } from '../adapters/state-writer/memory-state-writer.js';
export type { MemoryStateWriterOptions } from '../adapters/state-writer/memory-state-writer.js';
export { MemoryKillSwitch } from '../adapters/kill-switch/memory-kill-switch.js';
export { MemoryBudgetLedger } from '../adapters/budget-ledger/memory-budget-ledger.js';
export { MemoryAttemptLedger, SequentialIds } from '../core/engine/defaults.js';
export { MemoryWorkspace } from '../adapters/workspace/memory-workspace.js';
export { MemoryDiscovery } from '../adapters/discovery/memory-discovery.js';
export type { MemoryDiscoveryOptions, ScriptedProbeRun } from '../adapters/discovery/memory-discovery.js';
export { MemoryItemLeases } from '../adapters/item-leases/memory-item-leases.js';
export type { MemoryItemLeasesOptions } from '../adapters/item-leases/memory-item-leases.js';
