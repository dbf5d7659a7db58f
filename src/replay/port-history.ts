/**
 * Record and replay a tick at its ports. `recordPorts` wraps every port a
 * `LoopEngine` is given and writes down each call — port, method, arguments
 * and answer — as plain JSON. `replayPorts` turns such a history back into
 * ports that answer from it and check, call by call, that the engine asks
 * exactly what it asked when it was recorded. A tick replayed through a fresh
 * engine must give the identical `TickResult` and the identical call
 * sequence: the engine is a pure function of what its ports answer.
 *
 * @example
 * ```ts
 * const recorder = recordPorts(runtime.ports);
 * const result = await new LoopEngine(plan, recorder.ports).tick();
 * const history = recorder.history(plan, result);         // JSON: write it to a fixture
 * const replay = replayPorts(history);
 * expect(await new LoopEngine(history.plan, replay.ports).tick()).toEqual(history.result);
 * expect(replay.mismatches()).toEqual([]);
 * ```
 */
import type { EnginePorts } from '../core/engine/engine-ports.js';
import type { TickResult } from '../core/engine/tick-result.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';

export const REPLAY_HISTORY_VERSION = 1;

/** One port call. `args` and `result` are JSON; objects with methods appear as `{ "$object": name }`. */
export interface ReplayCall {
  port: string;
  method: string;
  args: unknown;
  result?: unknown;
  /** Set when the call threw or rejected: replay throws an Error with this message. */
  error?: string;
  async: boolean;
}

export interface ReplayHistory {
  version: typeof REPLAY_HISTORY_VERSION;
  plan: ExecutionPlan;
  /** Ports that are plain data (e.g. instruction documents), given back as they were. */
  data: Record<string, unknown>;
  /** Data properties the engine read from each port (e.g. `specificationVersion`), and which methods it has. */
  shapes: Record<string, { properties: Record<string, unknown>; methods: string[] }>;
  calls: ReplayCall[];
  result: TickResult;
}

type AnyFunction = (...args: unknown[]) => unknown;

/** The names of an object's methods, own and inherited (not Object's). */
function methodNames(value: object): string[] {
  const names = new Set<string>();
  for (let current: object | null = value; current && current !== Object.prototype; current = Object.getPrototypeOf(current)) {
    for (const key of Object.getOwnPropertyNames(current)) {
      if (key !== 'constructor' && typeof Object.getOwnPropertyDescriptor(current, key)?.value === 'function') names.add(key);
    }
  }
  return [...names];
}

const hasMethods = (value: object): boolean => methodNames(value).length > 0;

/** How a known object appears in the JSON: a port by name, an opaque object by its marker. */
export type Known = WeakMap<object, unknown>;

/** JSON for arguments and answers: ports by name, other objects with methods as opaque markers. */
export function toJson(value: unknown, known: Known): unknown {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value, function (this: unknown, _key, entry: unknown) {
    if (entry && (typeof entry === 'object' || typeof entry === 'function') && known.has(entry)) return known.get(entry);
    if (typeof entry === 'function') return undefined;
    if (entry && typeof entry === 'object' && !Array.isArray(entry) && hasMethods(entry)) return { $object: entry.constructor?.name ?? 'object' };
    return entry;
  });
  return text === undefined ? undefined : JSON.parse(text);
}

const isObjectPort = (value: unknown): value is object => Boolean(value) && typeof value === 'object' && !Array.isArray(value) && hasMethods(value as object);

/**
 * Wraps every port so each call is written down. The wrapped ports behave
 * exactly like the originals. An object with methods that an async port call
 * returns (a lease handle) is recorded as a port of its own, named
 * `<port>.<method>#<call>`; one returned synchronously (confined file access,
 * used by the backend rather than the engine) is kept opaque.
 */
export function recordPorts(ports: EnginePorts): { ports: EnginePorts; history(plan: ExecutionPlan, result: TickResult): ReplayHistory } {
  const calls: ReplayCall[] = [];
  const known: Known = new WeakMap();
  const shapes: ReplayHistory['shapes'] = {};
  const data: Record<string, unknown> = {};
  const wrapped: Record<string, unknown> = {};

  const call = (port: string, method: string, invoke: () => unknown, args: unknown[]): unknown => {
    const index = calls.length;
    const entry: ReplayCall = { port, method, args: toJson(args, known), async: false };
    calls.push(entry);
    const failed = (error: unknown) => (entry.error = error instanceof Error ? error.message : String(error));
    let result: unknown;
    try {
      result = invoke();
    } catch (error) {
      failed(error);
      throw error;
    }
    if (!(result instanceof Promise)) {
      entry.result = toJson(result, known);
      return result;
    }
    entry.async = true;
    return result.then(
      (value: unknown) => {
        const answer = isObjectPort(value) ? wrap(`${port}.${method}#${index}`, value) : value;
        entry.result = toJson(answer, known);
        return answer;
      },
      (error: unknown) => {
        failed(error);
        throw error;
      },
    );
  };

  function wrap(name: string, port: object): object {
    // Every method the port has, used or not: a replay under a changed plan may call one this tick did not.
    const shape = (shapes[name] = { properties: {} as Record<string, unknown>, methods: methodNames(port) });
    const proxy = new Proxy(port, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof key !== 'string') return value;
        if (typeof value === 'function') {
          if (!shape.methods.includes(key)) shape.methods.push(key);
          return (...args: unknown[]) => call(name, key, () => (value as AnyFunction).apply(target, args), args);
        }
        if (!(key in shape.properties)) shape.properties[key] = toJson(value, known);
        return value;
      },
    });
    known.set(proxy, { $port: name });
    return proxy;
  }

  for (const [name, port] of Object.entries(ports)) {
    if (name === 'signal') {
      // The operator's Ctrl-C is not the world: passed through, never recorded (a replay is never interrupted).
      wrapped[name] = port;
      continue;
    }
    if (typeof port === 'function') {
      const fn = (...args: unknown[]) => call(name, '()', () => (port as AnyFunction)(...args), args);
      known.set(fn, { $port: name });
      wrapped[name] = fn;
    } else if (isObjectPort(port)) {
      wrapped[name] = wrap(name, port);
    } else {
      data[name] = toJson(port, known);
      wrapped[name] = port;
    }
  }
  return {
    ports: wrapped as unknown as EnginePorts,
    history: (plan, result) => ({ version: REPLAY_HISTORY_VERSION, plan, data, shapes, calls: structuredClone(calls), result: toJson(result, known) as TickResult }),
  };
}

/**
 * Turns a recorded answer back into a value: a `$port` reference becomes that
 * (replayed) port, an opaque `$object` becomes an inert stand-in whose every
 * method reports through `onInertUse` and throws (the recording holds no
 * answer for it), anything else is a copy. Shared by `replayPorts` and the
 * user-facing `replay` command.
 *
 * @example
 * ```ts
 * const revive = recordedValueReviver({ known, portNamed, onInertUse: (what, key) => problems.push(`${what}.${key}()`) });
 * revive('workspace', 'prepare', { $port: 'workspace' }); // → the replayed workspace port
 * ```
 */
export function recordedValueReviver(options: { known: Known; portNamed: (name: string) => unknown; onInertUse: (description: string, key: string) => void }): (port: string, method: string, value: unknown) => unknown {
  const inert = (description: string, marker: unknown): object => {
    const object = new Proxy(
      {},
      {
        get(_target, key) {
          if (key === 'then' || key === 'toJSON' || typeof key !== 'string') return undefined;
          return () => {
            options.onInertUse(description, key);
            throw new Error(`replay: ${description}.${key}() is not in the recording`);
          };
        },
      },
    );
    options.known.set(object, marker);
    return object;
  };
  return (port, method, value) => {
    if (value === undefined) return undefined;
    if (value && typeof value === 'object' && '$port' in value) return options.portNamed(String((value as { $port: unknown }).$port));
    if (value && typeof value === 'object' && '$object' in value) return inert(`${port}.${method}() result`, value);
    return structuredClone(value);
  };
}

/** How a replay answers one call of a recorded port: its port name (`clock`, `workspace#2`…), method and arguments. */
export type ReplayAnswer = (port: string, method: string, args: unknown[]) => unknown;

/**
 * The ports a recording names, each answering through `answer` (the strict replay and the recorded world differ only
 * there): a port with a recorded shape is a Proxy offering its recorded properties (copies) and methods, plus any
 * method `offers` adds; a port without one is a function. Each is made once and registered in `known`, so values that
 * name it (`{ $port }`) revive to the same object. `ports()` is the engine's top level: the recorded data beside them.
 */
export function recordedPorts(history: ReplayHistory, known: Known, answer: ReplayAnswer, offers: (port: string, key: string) => boolean = () => false): { portNamed(port: string): unknown; ports(): EnginePorts } {
  const made = new Map<string, unknown>();
  const portNamed = (port: string): unknown => {
    if (made.has(port)) return made.get(port);
    const shape = history.shapes[port];
    const value = shape
      ? new Proxy(
          {},
          {
            get(_target, key) {
              if (typeof key !== 'string') return undefined;
              if (key in shape.properties) return structuredClone(shape.properties[key]);
              if (shape.methods.includes(key) || offers(port, key)) return (...args: unknown[]) => answer(port, key, args);
              return undefined;
            },
            has: (_target, key) => typeof key === 'string' && (key in shape.properties || shape.methods.includes(key)),
          },
        )
      : (...args: unknown[]) => answer(port, '()', args);
    known.set(value as object, { $port: port });
    made.set(port, value);
    return value;
  };
  const ports = (): EnginePorts => {
    const top: Record<string, unknown> = { ...structuredClone(history.data) };
    const names = new Set([...Object.keys(history.shapes), ...history.calls.map((entry) => entry.port)].filter((port) => !port.includes('#')));
    for (const port of names) top[port] = portNamed(port);
    return top as unknown as EnginePorts;
  };
  return { portNamed, ports };
}

/**
 * Ports that answer from `history`, in order. Every call is compared with the
 * recorded one (port, method, arguments); a difference is kept in
 * `mismatches()` and thrown, so a changed engine cannot pass unnoticed.
 */
export function replayPorts(history: ReplayHistory): { ports: EnginePorts; mismatches(): string[]; remaining(): number } {
  if (history.version !== REPLAY_HISTORY_VERSION) throw new TypeError(`Replay history version ${String(history.version)} is not supported; this is version ${REPLAY_HISTORY_VERSION}.`);
  const found: string[] = [];
  const mismatch = (message: string) => void found.push(message);
  const known: Known = new WeakMap();
  let next = 0;

  const revive = recordedValueReviver({
    known,
    portNamed: (name) => recorded.portNamed(name),
    onInertUse: (description, key) => mismatch(`${description}.${key}() was called, but the recording holds no answer for it`),
  });

  const answer: ReplayAnswer = (port, method, args) => {
    const index = next++;
    const expected = history.calls[index];
    const actual = toJson(args, known);
    if (!expected || expected.port !== port || expected.method !== method || JSON.stringify(expected.args) !== JSON.stringify(actual)) {
      const message = expected
        ? `call ${index}: the engine called ${port}.${method}(${JSON.stringify(actual)}) but the recording has ${expected.port}.${expected.method}(${JSON.stringify(expected.args)})`
        : `call ${index}: the engine called ${port}.${method}() after the recording ended`;
      mismatch(message);
      throw new Error(`replay mismatch: ${message}`);
    }
    const settle = (): unknown => {
      if (expected.error !== undefined) throw new Error(expected.error);
      return revive(port, method, expected.result);
    };
    if (!expected.async) return settle();
    return new Promise((resolve) => resolve(settle()));
  };

  const recorded = recordedPorts(history, known, answer);
  return { ports: recorded.ports(), mismatches: () => [...found], remaining: () => history.calls.length - next };
}
