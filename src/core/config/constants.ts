/**
 * Config constants with no schema library behind them, so code that only
 * needs a level list or the cadence shape (the CLI's `--level` check, plan
 * compilation) does not load zod. schemas.ts builds its schemas from these.
 */
export const LEVELS = ['L0', 'L1', 'L2', 'L3'] as const;
export type Level = (typeof LEVELS)[number];

export const CADENCE_PATTERN = /^[0-9]+[mhd](-[0-9]+[mhd])?$/;

export const KNOWN_TOOLS = [
  'grok',
  'claude-code',
  'codex',
  'opencode',
  'openclaw',
  'github-actions',
  'cursor',
  'windsurf',
  'aider',
] as const;
