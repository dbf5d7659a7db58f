/**
 * Whether OpenTelemetry is in use in this process: the API keeps its global
 * registry under this symbol on `globalThis`, set once anything registers a
 * tracer or meter provider (an SDK loaded with `node --import …`). Without
 * it every span and counter of `telemetry.ts` is a no-op, so a run does not
 * load `@opentelemetry/api` at all (~50 CommonJS files, ~20 ms of a cold run).
 * The key is the API's major version 1 (`opentelemetry.js.api.1`), the one
 * this package depends on.
 *
 * @example
 * ```ts
 * const observer = openTelemetryRegistered() ? (await import('./telemetry.js')).telemetryObserver(plan) : () => undefined;
 * ```
 */
export function openTelemetryRegistered(): boolean {
  return Symbol.for('opentelemetry.js.api.1') in globalThis;
}
