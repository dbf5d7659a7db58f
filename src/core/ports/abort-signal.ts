/**
 * The part of the host's `AbortSignal` the ports use, declared structurally so
 * the core compiles without DOM or Node types. A real `AbortSignal` (Node,
 * browsers, `AbortSignal.timeout()`) satisfies it.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * await runner.run(command, { cwd, timeoutMs: 60_000, signal: controller.signal });
 * ```
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  /** Why it was aborted; the CLI aborts with the stop signal's name (`'SIGTERM'`). */
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
