/**
 * Merging layered loop settings (later layers win). Scalars and lists are
 * replaced; the small nested objects (`reserve`, `delivery`,
 * `backendOptions`) merge key by key, so a per-loop `delivery: {mode: push}`
 * keeps a global `delivery.remote`.
 */
import type { LoopSettings, RuntimeSettings } from './schemas.js';

const NESTED_KEYS = ['reserve', 'delivery', 'backendOptions'] as const;

/**
 * Merges settings layers; undefined layers are skipped.
 *
 * @example
 * ```ts
 * mergeLoopSettings({ level: 'L1', delivery: { remote: 'up' } }, { delivery: { mode: 'push' } });
 * // → { level: 'L1', delivery: { remote: 'up', mode: 'push' } }
 * ```
 */
export function mergeLoopSettings(...layers: ReadonlyArray<LoopSettings | undefined | null>): LoopSettings {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      const previous = merged[key];
      if ((NESTED_KEYS as readonly string[]).includes(key) && previous && typeof previous === 'object' && typeof value === 'object') {
        merged[key] = { ...(previous as object), ...(value as object) };
      } else {
        merged[key] = value;
      }
    }
  }
  return merged as LoopSettings;
}

/** The top-level loop settings of a `loop-runtime:` block, without `version` and `loops`. */
export function topLevelSettings(settings: RuntimeSettings | null | undefined): LoopSettings {
  if (!settings) return {};
  const { version: _version, loops: _loops, store: _store, ...rest } = settings;
  return rest;
}
