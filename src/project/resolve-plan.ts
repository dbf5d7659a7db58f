/**
 * Plan compilation for a loaded project: the pattern, the settings layers
 * (root LOOP.md, loops/<id>/LOOP.md, CLI), the level, the budget cap and the
 * repository's defaults, handed to the pure `buildPlan`.
 */
import { findBudgetLimit } from '../core/config/load-budget.js';
import { closestMatch } from '../core/config/suggest.js';
import type { Level } from '../core/config/constants.js';
import { agentCandidates } from '../core/plan/agent-tools.js';
import { buildPlan } from '../core/plan/build-plan.js';
import { DEFAULT_PROBES, defaultProbesFor } from '../core/schedule/default-probes.js';
import { scaffoldFolders } from './agent-scaffold.js';
import { detectVerifyCommands } from './detect-verify.js';
import type { LoadedProject, ResolvePlanResult } from './load-project.js';
import { resolveLevel, settingsForLoop } from './project-settings.js';

export interface PlanOptions {
  level?: Level;
  backend?: string;
}

/** Defaults read from the repository's files, each read at most once per holder and only when a plan needs it. */
interface RepositoryFacts {
  verifyCommands(): Promise<string[]>;
  scaffoldFolders(): Promise<string[]>;
}

function repositoryFacts(root: string): RepositoryFacts {
  let verify: Promise<string[]> | undefined;
  let folders: Promise<string[]> | undefined;
  return {
    verifyCommands: () => (verify ??= detectVerifyCommands(root)),
    scaffoldFolders: () => (folders ??= scaffoldFolders(root)),
  };
}

/**
 * Compiles the ExecutionPlan for one loop of a loaded project.
 *
 * @example
 * ```ts
 * const resolved = await resolvePlan(project, 'daily-triage', { level: 'L2' });
 * if (resolved.ok) console.log(resolved.plan.phases.implement.enabled); // → true
 * ```
 */
export async function resolvePlan(project: LoadedProject, patternId: string, options: PlanOptions = {}): Promise<ResolvePlanResult> {
  return compilePlan(project, patternId, options, repositoryFacts(project.root));
}

/**
 * Compiles the plans of several loops, reading the repository's files for
 * defaults (verification commands, agent folders) once instead of per loop:
 * `list` compiles one for every pattern in the catalogue.
 *
 * @example
 * ```ts
 * const plans = await resolvePlans(project, project.patterns.map((pattern) => pattern.id));
 * plans.get('daily-triage')?.ok; // → true
 * ```
 */
export async function resolvePlans(project: LoadedProject, patternIds: readonly string[], options: PlanOptions = {}): Promise<Map<string, ResolvePlanResult>> {
  const facts = repositoryFacts(project.root);
  const plans = new Map<string, ResolvePlanResult>();
  for (const id of patternIds) plans.set(id, await compilePlan(project, id, options, facts));
  return plans;
}

async function compilePlan(project: LoadedProject, patternId: string, options: PlanOptions, facts: RepositoryFacts): Promise<ResolvePlanResult> {
  const pattern = project.patterns.find((candidate) => candidate.id === patternId);
  if (!pattern) {
    const known = project.patterns.map((candidate) => candidate.id);
    const suggestion = closestMatch(patternId, known);
    return {
      ok: false,
      issues: [
        {
          severity: 'error',
          code: 'PATTERN_NOT_FOUND',
          file: project.files.registry ? 'registry.yaml' : 'loop-runtime catalogue',
          line: 0,
          column: 0,
          path: '',
          message: `there is no loop pattern with id ${JSON.stringify(patternId)}.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
          fix: suggestion
            ? `run it as "${suggestion}"; the loops are: ${known.join(', ')}.`
            : `use one of: ${known.join(', ')}; or add a "${patternId}" entry to the project's registry.yaml.`,
        },
      ],
    };
  }
  const cli: { level?: Level; backend?: string } = {};
  if (options.level) cli.level = options.level;
  if (options.backend) cli.backend = options.backend;
  const overrides = settingsForLoop(patternId, { root: project.settings, loopFile: project.loopSettings[patternId], cli: {} });
  const { level, levelSource } = resolveLevel(pattern, { cliLevel: cli.level, settingsLevel: overrides.level, ledger: project.ledger });
  const merged = settingsForLoop(patternId, { root: project.settings, loopFile: project.loopSettings[patternId], cli });
  const limit = project.budget ? findBudgetLimit(project.budget, pattern) : undefined;
  // A loop without probes of its own gets our catalogue's defaults; `probes: []` turns them off.
  const withProbes = merged.probes === undefined && DEFAULT_PROBES[patternId] ? { ...merged, probes: defaultProbesFor(patternId) } : merged;
  const plan = buildPlan(pattern, {
    level,
    levelSource,
    overrides: withProbes,
    gate: project.gate,
    ...(limit?.maxTokensPerDay ? { dailyTokenCap: { value: limit.maxTokensPerDay, source: `loop-budget.md (${limit.loop})` } } : {}),
    ...(limit?.maxRunsPerDay ? { maxRunsPerDay: { value: limit.maxRunsPerDay, source: `loop-budget.md:${limit.line} (${limit.loop})` } } : {}),
    // Only read the repository for defaults when the loop has not said which commands verify it.
    ...(merged.verify === undefined ? { detectedVerifyCommands: await facts.verifyCommands() } : {}),
    ...(merged.backend === undefined ? { backendCandidates: agentCandidates(pattern.tools, await facts.scaffoldFolders()) } : {}),
  });
  return { ok: true, plan, warnings: [] };
}
