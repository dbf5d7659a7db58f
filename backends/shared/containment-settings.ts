/**
 * The containment keys `createLoopRuntime` adds to every CLI backend's
 * settings, as a zod shape the backends' own schemas extend (so a strict
 * schema cannot silently drop the loop's level and run a backend uncontained).
 */
import * as z from 'zod';
import type { SandboxDetection } from '../../src/adapters/command-runner/bwrap-runner.js';
import { LevelSchema } from '../../src/core/config/schemas.js';

export const ContainmentSettingsShape = {
  level: LevelSchema.optional(),
  allowUnsandboxed: z.boolean().optional(),
  log: z.custom<(line: string) => void>((value) => typeof value === 'function').optional(),
  bwrapPath: z.string().optional(),
  detectSandbox: z.custom<() => Promise<SandboxDetection>>((value) => typeof value === 'function').optional(),
  worktreesDir: z.string().nullable().optional(),
};
