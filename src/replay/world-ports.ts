/**
 * Ports that answer from a recorded tick's port history — "the recorded
 * world" — for an engine that may no longer ask the same questions (the team
 * changed LOOP.md, gate.yaml or the level since). Unlike the strict
 * `replayPorts` of `loop-runtime/testing`, nothing throws at the first
 * difference: each port's calls are matched in that port's order, and what
 * does not line up is written down as a `CallDifference`:
 *
 * - same method, different arguments → answered from the recording (`arguments`);
 * - a call the recording does not hold → `unexpected`; answered when the
 *   method returns nothing (keep, discard, append, note…), otherwise the
 *   engine gets an error (and the replay reports where it stopped);
 * - recorded calls the engine never made → `not-asked`.
 *
 * `clock` and `ids` give back their recorded values in order (the last one
 * again when they run out), so the replayed tick has the recorded ids and times.
 */
import type { EnginePorts } from '../core/engine/engine-ports.js';
import { jsonDifferences, shortJson } from '../core/replay/json-differences.js';
import { recordedPorts, recordedValueReviver, toJson, type Known, type ReplayCall, type ReplayHistory } from './port-history.js';

/** One way the engine's port calls no longer line up with the recording. `index`: position in the recording. */
export type CallDifference =
  | { kind: 'unexpected'; call: number; asked: string; expected: string | null; expectedIndex: number | null; answered: 'void' | 'error' }
  | { kind: 'arguments'; call: number; index: number; method: string; path: string; recorded: unknown; now: unknown }
  | { kind: 'not-asked'; index: number; method: string };

/** Methods that answer nothing: after a divergence they can still be answered, so the tick runs to its end. */
const VOID_METHODS = new Set(['workspace.keep', 'workspace.discard', 'workspace.recover', 'state.recordTick', 'state.note', 'attempts.append', 'release']);
/** Required void methods: offered even by an older recording that did not list them (optional ones never are). */
const REQUIRED_VOID_METHODS = new Set(['workspace.keep', 'workspace.discard', 'state.recordTick', 'state.note', 'attempts.append']);
const STREAM_PORTS = new Set(['clock', 'ids']);

const describe = (port: string, method: string, args: unknown): string => {
  const shown = Array.isArray(args) ? args.map((arg) => shortJson(arg, 40)).join(', ') : '';
  return `${port}.${method}(${shown})`;
};

/**
 * @example
 * ```ts
 * const world = worldPorts(history, { redact });
 * const result = await new LoopEngine(currentPlan, { ...world.ports, instructions }).tick();
 * world.differences(); // → [{ kind: 'unexpected', call: 39, asked: 'workspace.keep(…)', expected: 'workspace.commit(…)', … }]
 * ```
 */
export function worldPorts(history: ReplayHistory, options: { redact?: (text: string) => string } = {}): { ports: EnginePorts; differences(): CallDifference[] } {
  const redact = options.redact ?? ((text: string) => text);
  const consumed = new Set<number>();
  const found: CallDifference[] = [];
  const known: Known = new WeakMap();
  let asked = 0;

  /** The engine's arguments as they would have been recorded: JSON, redacted like a recording. */
  const recordedForm = (args: unknown[]): unknown =>
    JSON.parse(JSON.stringify(toJson(args, known) ?? null, (_key, entry: unknown) => (typeof entry === 'string' ? redact(entry) : entry)));

  const byPort = new Map<string, number[]>();
  history.calls.forEach((entry, index) => byPort.set(entry.port, [...(byPort.get(entry.port) ?? []), index]));
  const open = (port: string) => (byPort.get(port) ?? []).filter((index) => !consumed.has(index));
  /** The recording's position: the last call answered (clock and ids aside). */
  let position = -1;
  /** The recorded call the engine would have made next: the first unanswered one after the position. */
  const nextExpected = (): number | null => {
    for (let index = position + 1; index < history.calls.length; index++) if (!consumed.has(index) && !STREAM_PORTS.has(history.calls[index]!.port)) return index;
    return null;
  };

  const revive = recordedValueReviver({
    known,
    portNamed: (name) => recorded.portNamed(name),
    onInertUse: (description, key) => found.push({ kind: 'unexpected', call: asked++, asked: `${description}.${key}()`, expected: null, expectedIndex: null, answered: 'error' }),
  });

  /** Finds the recorded call that answers this one, or writes down why none does. */
  const match = (port: string, method: string, args: unknown[]): ReplayCall | null => {
    const call = asked++;
    const candidates = open(port);
    if (STREAM_PORTS.has(port)) {
      const index = candidates.find((at) => history.calls[at]!.method === method) ?? (byPort.get(port) ?? []).findLast((at) => history.calls[at]!.method === method);
      if (index === undefined) return null;
      consumed.add(index);
      return history.calls[index]!;
    }
    const now = recordedForm(args);
    const same = (at: number) => history.calls[at]!.method === method;
    const exact = candidates.find((at) => same(at) && JSON.stringify(history.calls[at]!.args) === JSON.stringify(now));
    const index = exact ?? candidates.find(same);
    if (index !== undefined) {
      consumed.add(index);
      position = Math.max(position, index);
      if (exact === undefined) {
        const [first] = jsonDifferences(history.calls[index]!.args, now, 1, 'args');
        found.push({ kind: 'arguments', call, index, method: `${port}.${method}`, path: first?.path ?? 'args', recorded: first?.recorded, now: first?.now });
      }
      return history.calls[index]!;
    }
    const expectedIndex = nextExpected();
    const expected = expectedIndex === null ? null : history.calls[expectedIndex]!;
    const answersNothing = VOID_METHODS.has(`${port}.${method}`) || (port.includes('#') && VOID_METHODS.has(method));
    found.push({
      kind: 'unexpected',
      call,
      asked: describe(port, method, now),
      expected: expected ? describe(expected.port, expected.method, expected.args) : null,
      expectedIndex,
      answered: answersNothing ? 'void' : 'error',
    });
    if (answersNothing) return { port, method, args: now, async: true };
    throw new Error(`replay: the recording holds no answer for ${port}.${method}() (diverged at call ${call})`);
  };

  const answer = (port: string, method: string, args: unknown[]): unknown => {
    const recorded = match(port, method, args);
    if (!recorded) throw new Error(`replay: the recording never called ${port}.${method}()`);
    // Callbacks (withBaseFiles' `run`) run now, so the calls they make are answered from the recording too.
    const callbacks = args.filter((arg): arg is () => unknown => typeof arg === 'function');
    const settle = (): unknown => {
      if (recorded.error !== undefined) throw new Error(recorded.error);
      return revive(port, method, recorded.result);
    };
    if (!recorded.async) return settle();
    return (async () => {
      for (const callback of callbacks) await callback();
      return settle();
    })();
  };

  // Recordings list every method of a port; a required void one is offered even if an older recording did not list it.
  const recorded = recordedPorts(history, known, answer, (port, key) => REQUIRED_VOID_METHODS.has(`${port}.${key}`));
  return {
    ports: recorded.ports(),
    differences: () => {
      const notAsked = history.calls.flatMap((entry, index) =>
        consumed.has(index) || STREAM_PORTS.has(entry.port) ? [] : [{ kind: 'not-asked' as const, index, method: describe(entry.port, entry.method, entry.args) }],
      );
      return [...found, ...notAsked];
    },
  };
}
