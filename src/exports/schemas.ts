/**
 * `loop-runtime/schemas`: the configuration's zod schemas and loaders (registry.yaml, LOOP.md front matter, gate.yaml,
 * loop-budget.md, loop-ledger.json) and the state file formats (STATE.md, the run log), for tools that read or
 * write a repository's loop files. The package root keeps `loadRegistry` and `formatDiagnostic`, which building a plan
 * needs.
 *
 * @example
 * ```ts
 * import { PatternSchema, parseRunLog } from 'loop-runtime/schemas';
 * const entries = parseRunLog(await readFile('loop-run-log.md', 'utf8'));
 * ```
 */
export * from '../core/config/index.js';
export * from '../core/state/index.js';
