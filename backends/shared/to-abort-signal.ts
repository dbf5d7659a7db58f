import type { AbortSignalLike } from '../../src/core/ports/index.js';

/**
 * The host `AbortSignal` behind a port's structural `AbortSignalLike`, for
 * APIs that need the real thing (SDK clients, `fetch`, execa). A real signal is
 * returned as is; anything else is mirrored by a controller that aborts when
 * it does.
 */
export function toAbortSignal(signal: AbortSignalLike): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort();
  else signal.addEventListener('abort', () => controller.abort(), { once: true });
  return controller.signal;
}
