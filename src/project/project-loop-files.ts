/**
 * Per-loop settings files: `loops/<id>/LOOP.md`, whose front-matter
 * `loop-runtime:` block applies to that one loop (after the root LOOP.md's
 * `loops.<id>` block, before CLI options).
 */
import { join } from 'node:path';
import type { Diagnostic } from '../core/config/diagnostics.js';
import { loadLoopMdText } from './config-parsers.js';
import type { LoopSettings } from '../core/config/schemas.js';
import { listDirectories, readOptionalText } from './project-files.js';

export interface LoopFileSettings {
  settings: Record<string, LoopSettings>;
  issues: Diagnostic[];
  warnings: Diagnostic[];
}

/** Reads every `loops/<id>/LOOP.md` under `root`, reporting all problems. */
export async function loadLoopFiles(root: string, knownIds: ReadonlySet<string>): Promise<LoopFileSettings> {
  const result: LoopFileSettings = { settings: {}, issues: [], warnings: [] };
  for (const id of await listDirectories(join(root, 'loops'))) {
    const file = `loops/${id}/LOOP.md`;
    const text = await readOptionalText(join(root, file));
    if (text === null) continue;
    const loaded = await loadLoopMdText(text, file);
    result.warnings.push(...loaded.warnings);
    if (!loaded.ok) {
      result.issues.push(...loaded.issues);
      continue;
    }
    const settings = loaded.value.settings;
    if (!settings) continue;
    if (settings.loops) {
      result.issues.push({
        severity: 'error',
        file,
        line: 2,
        column: 1,
        path: 'loop-runtime.loops',
        message: '"loops:" is only read from the root LOOP.md; here it would be ignored.',
        fix: `put this loop's settings directly under "loop-runtime:" in ${file}, or move the "loops:" block to the root LOOP.md.`,
      });
      continue;
    }
    if (settings.store !== undefined) {
      result.issues.push({
        severity: 'error',
        file,
        line: 2,
        column: 1,
        path: 'loop-runtime.store',
        message: '"store:" is only read from the root LOOP.md: every loop of a repository shares one store.',
        fix: 'move "store:" to the loop-runtime: block of the root LOOP.md (or set LOOP_RUNTIME_DATABASE_URL).',
      });
      continue;
    }
    if (!knownIds.has(id)) {
      result.warnings.push({
        severity: 'warning',
        file,
        line: 0,
        column: 0,
        path: '',
        message: `the directory name "${id}" is not a known pattern id, so these settings apply to no loop.`,
        fix: `rename the directory to one of: ${[...knownIds].join(', ')}.`,
      });
    }
    const { version: _version, loops: _loops, store: _store, ...loopSettings } = settings;
    result.settings[id] = loopSettings;
  }
  return result;
}
