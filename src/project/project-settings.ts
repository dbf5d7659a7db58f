/**
 * Per-loop settings and level resolution (pure): the layers are merged in
 * order root `loop-runtime:` → its `loops.<id>` → `loops/<id>/LOOP.md` →
 * CLI, and the level is taken from the first of CLI → settings → ledger →
 * week_one_mode → L1 that has one, remembering where it came from.
 */
import { mergeLoopSettings, topLevelSettings } from '../core/config/merge-settings.js';
import { LEVELS } from '../core/config/constants.js';
import type { Ledger, Level, LoopSettings, Pattern, RuntimeSettings } from '../core/config/schemas.js';

export interface SettingsLayers {
  root: RuntimeSettings | null;
  /** Settings from `loops/<id>/LOOP.md`, if that file exists. */
  loopFile: LoopSettings | undefined;
  cli: { level?: Level; backend?: string };
}

/** Merged settings for one loop. */
export function settingsForLoop(patternId: string, layers: SettingsLayers): LoopSettings {
  const cli: LoopSettings = {};
  if (layers.cli.level) cli.level = layers.cli.level;
  if (layers.cli.backend) cli.backend = layers.cli.backend;
  return mergeLoopSettings(topLevelSettings(layers.root), layers.root?.loops?.[patternId], layers.loopFile, cli);
}

/**
 * The level for a loop and where it came from.
 *
 * @example
 * ```ts
 * resolveLevel(pattern, { cliLevel: undefined, settingsLevel: undefined, ledger: { pattern: 'ci-sweeper', level: 'L2', attempts: [] } });
 * // → { level: 'L2', levelSource: 'ledger' } (for ci-sweeper)
 * ```
 */
export function resolveLevel(
  pattern: Pattern,
  sources: { cliLevel?: Level | undefined; settingsLevel?: Level | undefined; ledger: Ledger | null },
): { level: Level; levelSource: string } {
  if (sources.cliLevel) return { level: sources.cliLevel, levelSource: 'cli' };
  if (sources.settingsLevel) return { level: sources.settingsLevel, levelSource: 'front-matter' };
  const ledgerLevel = sources.ledger?.pattern === pattern.id ? sources.ledger.level : undefined;
  if (ledgerLevel && (LEVELS as readonly string[]).includes(ledgerLevel)) return { level: ledgerLevel as Level, levelSource: 'ledger' };
  if (pattern.week_one_mode) return { level: pattern.week_one_mode, levelSource: 'week-one-mode' };
  return { level: 'L1', levelSource: 'default' };
}
