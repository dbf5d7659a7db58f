/**
 * The I/O shell around the config pipeline: reads a repository's loop files
 * (registry.yaml, LOOP.md, gate.yaml, loop-budget.md, loop-ledger.json,
 * loops/<id>/LOOP.md) plus our own catalogue, runs the pure loaders, and
 * returns either a LoadedProject or every problem found.
 */
import { existsSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../core/config/diagnostics.js';
import { loadBudget } from '../core/config/load-budget.js';
import type { BudgetFile } from '../core/config/load-budget.js';
import type { Ledger, LoopSettings, Pattern, RuntimeSettings } from '../core/config/schemas.js';
import { DEFAULT_GATE_POLICY } from '../core/gate/default-policy.js';
import type { ExecutionPlan, GatePolicy } from '../core/plan/execution-plan.js';
import { configParsers, loadLoopMdText } from './config-parsers.js';
import { loadCatalogue } from './load-catalogue.js';
import { mergeCatalogue } from './project-catalogue.js';
import { detectConfiguredLoops } from './project-detect.js';
import { configuredStateFiles } from './loop-enrolment.js';
import { readOptionalText } from './project-files.js';
import { loadLoopFiles } from './project-loop-files.js';

export interface LoadedProject {
  root: string;
  /** Where our registry.yaml + patterns/ live. */
  packageRoot: string;
  /** The catalogue merged with the project's registry.yaml (project entries override by id, new ids added). */
  patterns: Pattern[];
  patternSource: Record<string, 'catalogue' | 'project'>;
  /** The root LOOP.md `loop-runtime:` block. */
  settings: RuntimeSettings | null;
  /** Settings from `loops/<id>/LOOP.md` front matter, by loop id. */
  loopSettings: Record<string, LoopSettings>;
  /** The project's gate.yaml, or DEFAULT_GATE_POLICY. */
  gate: GatePolicy;
  configuredLoops: string[];
  /** loop-budget.md's primary loop and daily limits, when the file exists. */
  budget: BudgetFile | null;
  /** loop-ledger.json, when it exists and is readable. */
  ledger: Ledger | null;
  warnings: Diagnostic[];
  /** Absolute paths of the files that were found. */
  files: { registry?: string; loopMd?: string; gate?: string; budget?: string; ledger?: string };
}

export type LoadProjectResult =
  | { ok: true; project: LoadedProject; warnings: Diagnostic[] }
  | { ok: false; issues: Diagnostic[]; warnings: Diagnostic[] };

export type ResolvePlanResult = { ok: true; plan: ExecutionPlan; warnings: Diagnostic[] } | { ok: false; issues: Diagnostic[] };

/**
 * The directory holding loop-runtime's package.json, found by walking up from
 * this module (works from `src/` under vitest and from `dist/src/`).
 */
export function findPackageRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'loop-runtime') return directory;
      } catch {
        // An unreadable package.json is not ours; keep walking.
      }
    }
    const parent = dirname(directory);
    if (parent === directory) throw new Error('loop-runtime: cannot find the package root (no package.json named "loop-runtime" above this module).');
    directory = parent;
  }
}

/** A repository root that does not exist is a config error, never "no loops" (a cron line with a typo would do nothing forever). */
async function missingRoot(root: string): Promise<Diagnostic | null> {
  const info = await stat(root).catch(() => null);
  if (info?.isDirectory()) return null;
  return {
    severity: 'error',
    file: root,
    line: 0,
    column: 0,
    path: '',
    message: info ? 'is not a directory, so there is no repository to run loops in.' : 'does not exist, so there is no repository to run loops in.',
    fix: 'pass the repository root with --cwd (or run the command from inside it).',
    code: 'ROOT_NOT_FOUND',
  };
}

function asWarnings(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.map((diagnostic) => ({ ...diagnostic, severity: 'warning' as const }));
}

/**
 * Loads everything loop-runtime needs from a repository, reporting every problem at once.
 *
 * @example
 * ```ts
 * const loaded = await loadProject('/path/to/repo');
 * if (loaded.ok) console.log(loaded.project.configuredLoops); // e.g. ['daily-triage']
 * ```
 */
export async function loadProject(root: string, options: { packageRoot?: string } = {}): Promise<LoadProjectResult> {
  const packageRoot = options.packageRoot ?? findPackageRoot();
  const missing = await missingRoot(root);
  if (missing) return { ok: false, issues: [missing], warnings: [] };
  const issues: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const files: LoadedProject['files'] = {};
  const path = (name: string) => join(root, name);

  const [catalogue, registryText, loopMdText, gateText, budgetText, ledgerText] = await Promise.all([
    loadCatalogue(packageRoot),
    readOptionalText(path('registry.yaml')),
    readOptionalText(path('LOOP.md')),
    readOptionalText(path('gate.yaml')),
    readOptionalText(path('loop-budget.md')),
    readOptionalText(path('loop-ledger.json')),
  ]);
  if (!catalogue.ok) return { ok: false, issues: catalogue.issues, warnings };

  let projectPatterns: Pattern[] | null = null;
  if (registryText !== null) {
    files.registry = path('registry.yaml');
    // A project entry with a catalogue id overrides only the fields it names (README: "overrides by id").
    const loaded = (await configParsers()).loadRegistry(registryText, 'registry.yaml', { base: catalogue.registry.patterns });
    warnings.push(...loaded.warnings);
    if (loaded.ok) projectPatterns = loaded.value.patterns;
    else issues.push(...loaded.issues);
  }

  let settings: RuntimeSettings | null = null;
  if (loopMdText !== null) {
    files.loopMd = path('LOOP.md');
    const loaded = await loadLoopMdText(loopMdText, 'LOOP.md');
    warnings.push(...loaded.warnings);
    if (loaded.ok) settings = loaded.value.settings;
    else issues.push(...loaded.issues);
  }

  let gate: GatePolicy = DEFAULT_GATE_POLICY;
  if (gateText !== null) {
    files.gate = path('gate.yaml');
    const loaded = (await configParsers()).loadGate(gateText, 'gate.yaml');
    warnings.push(...loaded.warnings);
    if (loaded.ok) gate = loaded.value;
    else issues.push(...loaded.issues);
  }

  let budget: BudgetFile | null = null;
  if (budgetText !== null) {
    files.budget = path('loop-budget.md');
    const loaded = loadBudget(budgetText, 'loop-budget.md');
    warnings.push(...loaded.warnings);
    if (loaded.ok) budget = loaded.value;
    else warnings.push(...asWarnings(loaded.issues));
  }

  // The ledger is a hint (level, detection), owned by loop-context: problems in it never block a run.
  let ledger: Ledger | null = null;
  if (ledgerText !== null) {
    files.ledger = path('loop-ledger.json');
    const loaded = (await configParsers()).loadLedger(ledgerText, 'loop-ledger.json');
    warnings.push(...loaded.warnings);
    if (loaded.ok) ledger = loaded.value;
    else warnings.push(...asWarnings(loaded.issues));
  }

  const { patterns, patternSource } = mergeCatalogue(catalogue.registry.patterns, projectPatterns);
  const knownIds = new Set(patterns.map((pattern) => pattern.id));
  const loopFiles = await loadLoopFiles(root, knownIds);
  issues.push(...loopFiles.issues);
  warnings.push(...loopFiles.warnings);

  for (const id of Object.keys(settings?.loops ?? {})) {
    if (knownIds.has(id)) continue;
    warnings.push({
      severity: 'warning',
      file: 'LOOP.md',
      line: 0,
      column: 0,
      path: `loop-runtime.loops.${id}`,
      message: `"${id}" is not a known pattern id, so these settings apply to no loop.`,
      fix: `use one of: ${[...knownIds].join(', ')}.`,
    });
  }

  if (issues.length > 0) return { ok: false, issues, warnings };

  const stateNames = [...new Set(patterns.map((pattern) => pattern.state))];
  const existingStateFiles = await configuredStateFiles(root, stateNames);
  const configuredLoops = detectConfiguredLoops({
    patterns,
    registryIds: projectPatterns?.map((pattern) => pattern.id) ?? null,
    loopMd: loopMdText,
    settingsIds: [...Object.keys(settings?.loops ?? {}), ...Object.keys(loopFiles.settings)],
    existingStateFiles,
    ledgerPattern: ledger?.pattern ?? null,
    budgetPrimaryLoop: budget?.primaryLoop ?? null,
  });

  const project: LoadedProject = {
    root,
    packageRoot,
    patterns,
    patternSource,
    settings,
    loopSettings: loopFiles.settings,
    gate,
    configuredLoops,
    budget,
    ledger,
    warnings,
    files,
  };
  return { ok: true, project, warnings };
}

export { resolvePlan, resolvePlans } from './resolve-plan.js';
