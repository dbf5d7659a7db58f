/**
 * Every CLI command, in help order. Each entry imports its handler lazily.
 * To add a command: write `src/cli/commands/<name>.ts` exporting a
 * `CommandDefinition`-compatible handler and append one entry here.
 */
import type { CommandDefinition } from '../command.js';

export const commands: CommandDefinition[] = [];
