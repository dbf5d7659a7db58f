/**
 * Which backend a real tick runs, and why: the configured one, or for a
 * loop with no `backend:` (`name: 'auto'` in the plan) the first installed
 * agent of the plan's candidates. No installed agent is a stop with exit 3
 * and the fix, never a silent mock tick. For opencode with no model, also
 * the model, chosen from the provider whose key is set (`opencode-model.ts`).
 */
import { LoopRuntimeError } from '../core/errors.js';
import { scaffoldLabel } from '../core/plan/agent-tools.js';
import { AUTO_BACKEND, type BackendSource, type ExecutionPlan } from '../core/plan/execution-plan.js';
import { chooseAgent } from '../adapters/agents/agent-detection.js';
import { chooseOpenCodeModel, configuredModel } from '../adapters/agents/opencode-model.js';

export interface BackendChoice {
  /** The backend that will run; null when no candidate is installed. */
  backend: string | null;
  source: BackendSource;
  /** One line: why this backend (or why none). */
  reason: string;
  /** For a chosen CLI agent: the binary found. */
  binary?: string;
  /** When no backend can run: the one-line fix. */
  fix?: string;
  /** A model loop-runtime chose because none is configured (opencode: from the provider whose key is set). */
  model?: string;
}

/** Describes the choice without failing (plan, status, doctor). */
export function describeBackendChoice(plan: ExecutionPlan, root: string, env: Record<string, string | undefined>): BackendChoice {
  return withChosenModel(describeAgentChoice(plan, root, env), plan, env);
}

function describeAgentChoice(plan: ExecutionPlan, root: string, env: Record<string, string | undefined>): BackendChoice {
  const { backend } = plan;
  if (backend.name !== AUTO_BACKEND) {
    const reason = backend.source === 'tools' ? `chosen from the loop's agents (${backend.candidates.map((candidate) => candidate.backend).join(', ')})` : 'configured (`backend:` or --backend)';
    return { backend: backend.name, source: backend.source, reason };
  }
  const choice = chooseAgent(backend.candidates, root, env);
  if (!choice.ok) return { backend: null, source: backend.source, reason: choice.message, fix: choice.fix };
  const where = choice.from === 'scaffold' ? `the project's ${scaffoldLabel(choice.tool)} scaffold` : `the pattern's tools (${choice.tool})`;
  const others = backend.candidates.filter((candidate) => candidate.backend !== choice.backend).map((candidate) => candidate.backend);
  return {
    backend: choice.backend,
    source: backend.source,
    binary: choice.binary,
    reason: `no backend configured; ${where} names it and ${choice.binary} is installed${others.length ? ` (also possible: ${others.join(', ')})` : ''}`,
  };
}

/**
 * opencode with no model: the model chosen from the key that is set, and why, appended to the reason. With no key
 * to choose from the choice stays without a model, and the tick's precondition `backend-model` refuses it.
 */
function withChosenModel(choice: BackendChoice, plan: ExecutionPlan, env: Record<string, string | undefined>): BackendChoice {
  if (choice.backend !== 'opencode') return choice;
  const model = chooseOpenCodeModel(configuredModel(plan.backend), env);
  if (!model.ok || model.from !== 'key') return choice;
  return { ...choice, model: model.model, reason: `${choice.reason}; ${model.reason}` };
}

/**
 * The plan with its backend decided: unchanged when configured; for `auto`,
 * the chosen agent with its binary path as the `binary` setting; and a model
 * loop-runtime chose (opencode with none configured) as the plan's `model`.
 * Throws `BACKEND_NOT_FOUND` (exit 3) naming the package to install when no
 * candidate is installed.
 *
 * @example
 * ```ts
 * withChosenBackend(plan, '/repo', { PATH: '', ANTHROPIC_API_KEY: 'sk-…' }).plan.backend;
 * // → { name: 'opencode', model: 'anthropic/claude-sonnet-5', options: { binary: '/repo/node_modules/.bin/opencode' }, … }
 * ```
 */
export function withChosenBackend(plan: ExecutionPlan, root: string, env: Record<string, string | undefined>): { plan: ExecutionPlan; choice: BackendChoice } {
  const choice = describeBackendChoice(plan, root, env);
  const model = choice.model ? { model: choice.model } : {};
  if (plan.backend.name !== AUTO_BACKEND) return { plan: choice.model ? { ...plan, backend: { ...plan.backend, ...model } } : plan, choice };
  if (choice.backend === null) {
    throw new LoopRuntimeError('BACKEND_NOT_FOUND', `Loop ${plan.pattern.id} cannot run: ${choice.reason}`, { ...(choice.fix ? { fix: choice.fix } : {}) });
  }
  const options = { ...(choice.binary ? { binary: choice.binary } : {}), ...plan.backend.options };
  return { plan: { ...plan, backend: { ...plan.backend, name: choice.backend, options, ...model } }, choice };
}
