/**
 * The engine's construction-time contract check: every required port is
 * present, and every port (required or optional) implements the
 * specification version this engine was written against. A mismatch is a
 * TypeError naming the port, what it implements and what is needed — an
 * adapter written for another shape is refused instead of misbehaving.
 */
import type { EnginePorts } from './engine-ports.js';

/** The specification version this engine needs from each versioned port. */
export const PORT_VERSIONS = {
  backend: 'agent-backend-v2',
  state: 'state-writer-v1',
  workspace: 'workspace-v1',
  attempts: 'attempt-ledger-v2',
  killSwitch: 'kill-switch-v1',
  commands: 'command-runner-v1',
  discovery: 'discovery-v1',
  delivery: 'delivery-v1',
  items: 'item-leases-v1',
  lease: 'tick-lease-v1',
} as const satisfies Partial<Record<keyof EnginePorts, string>>;

const REQUIRED = ['backend', 'state', 'budget', 'workspace', 'attempts', 'killSwitch', 'clock', 'ids'] as const satisfies ReadonlyArray<keyof EnginePorts>;

const HINT = 'pass it in EnginePorts (createMemoryPorts() from loop-runtime/testing gives a complete in-memory set)';

/** Throws a TypeError for the first missing or mismatched port. */
export function checkPorts(ports: EnginePorts): void {
  const given = ports as Partial<Record<keyof EnginePorts, unknown>>;
  for (const name of REQUIRED) {
    if (given[name] === undefined || given[name] === null) {
      const needs = name in PORT_VERSIONS ? ` implementing "${PORT_VERSIONS[name as keyof typeof PORT_VERSIONS]}"` : '';
      throw new TypeError(`LoopEngine: the ${name} port is missing; this engine needs one${needs}. To fix: ${HINT}.`);
    }
  }
  if (typeof ports.clock.now !== 'function') throw new TypeError(`LoopEngine: the clock port has no now() method. To fix: pass a Clock ({ now(): number }).`);
  if (typeof ports.ids.next !== 'function') throw new TypeError(`LoopEngine: the ids port has no next() method. To fix: pass an IdGenerator such as SequentialIds.`);
  for (const [name, version] of Object.entries(PORT_VERSIONS)) {
    const port = given[name as keyof EnginePorts] as { specificationVersion?: unknown } | undefined;
    if (port === undefined) continue;
    if (port.specificationVersion !== version) {
      const has = port.specificationVersion === undefined ? 'no specificationVersion' : `"${String(port.specificationVersion)}"`;
      throw new TypeError(
        `LoopEngine: the ${name} port implements ${has}, but this engine needs "${version}". To fix: update the adapter to the "${version}" contract (its conformance suite is in loop-runtime/testing/conformance).`,
      );
    }
  }
}
