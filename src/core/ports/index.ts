/**
 * The ports a tick runs through. The engine imports no I/O: everything it
 * does to the world goes through one of these interfaces, and every adapter
 * (mock, git worktrees, bubblewrap, Claude Code, OpenAI, files on disk) plugs
 * in behind one of them.
 *
 * Conventions:
 * - Each port carries a `specificationVersion` tag so an adapter written for
 *   an older shape is refused instead of misbehaving.
 * - Optional capabilities are optional methods; the engine checks for them
 *   and throws `CapabilityUnsupportedError` when a plan needs a missing one.
 * - Expected failures are data (`{ ok: false, reason, message, detail }`),
 *   never raw library exceptions.
 */
export * from './clock.js';
export * from './abort-signal.js';
export * from './usage.js';
export * from './agent-backend.js';
export * from './workspace.js';
export * from './delivery.js';
export * from './command-runner.js';
export * from './discovery.js';
export * from './item-leases.js';
export * from './tick-lease.js';
export * from './budget-ledger.js';
export * from './kill-switch.js';
export * from './attempt-ledger.js';
export * from './state-writer.js';
export * from './events.js';
