/**
 * Test doubles for testing your own loops: a scripted mock backend that
 * records its calls, in-memory state/budget/attempts/workspace, a kill switch
 * you can flip, a clock that only moves when told to, and `createMemoryPorts`
 * to get all of them at once. Conformance suites for adapters are in
 * `loop-runtime/testing/conformance` (they need vitest).
 */
export { createMockBackend, MockBackend, MOCK_SCENARIOS } from '../../backends/mock/index.js';
export type { MockBackendOptions, MockCall, MockScenario } from '../../backends/mock/index.js';
export { FixedClock } from './fixed-clock.js';
export { createMemoryPorts } from './create-memory-ports.js';
export type { MemoryPorts, MemoryPortsOptions } from './create-memory-ports.js';
export { ScriptedCommandRunner } from './scripted-command-runner.js';
export type { ScriptedCommandRunnerOptions } from './scripted-command-runner.js';
export { MemoryStateWriter } from '../adapters/state-writer/memory-state-writer.js';
export type { MemoryStateWriterOptions } from '../adapters/state-writer/memory-state-writer.js';
export { MemoryKillSwitch, MemoryKillSwitchStore } from '../adapters/kill-switch/memory-kill-switch.js';
export { MemoryBudgetLedger } from '../adapters/budget-ledger/memory-budget-ledger.js';
export { MemoryAttemptLedger } from '../adapters/attempt-ledger/memory-attempt-ledger.js';
export { SequentialIds } from '../core/engine/sequential-ids.js';
export { MemoryWorkspace } from '../adapters/workspace/memory-workspace.js';
export { recordPorts, replayPorts, REPLAY_HISTORY_VERSION } from '../replay/port-history.js';
export type { ReplayCall, ReplayHistory } from '../replay/port-history.js';
export { MemoryDelivery, MemoryDeliveryStore } from '../adapters/delivery/memory-delivery.js';
export { MemoryDiscovery } from '../adapters/discovery/memory-discovery.js';
export type { MemoryDiscoveryOptions, ScriptedProbeRun } from '../adapters/discovery/memory-discovery.js';
export { MemoryItemLeases } from '../adapters/leases/memory-item-leases.js';
export type { MemoryItemLeasesOptions } from '../adapters/leases/memory-item-leases.js';
export { JsTestCommandRunner, runJsTests } from './js-test-command-runner.js';
export { ScriptedEditBackend } from './scripted-edit-backend.js';
export type { ScriptedEditBackendOptions } from './scripted-edit-backend.js';
export { JS_FIXTURE_FILES, JS_FIXTURE_FIX, filesAtMemoryPath } from './js-fixture-project.js';
