/**
 * Which backend a real tick runs, and why: the configured one, or for a
 * loop with no `backend:` (`name: 'auto'` in the plan) the first installed
 * agent of the plan's candidates. No installed agent is a stop with exit 3
 * and the fix, never a silent mock tick.
 */
import { LoopRuntimeError } from '../core/errors.js';
import { AUTO_BACKEND, type BackendSource, type ExecutionPlan } from '../core/plan/execution-plan.js';
import { chooseAgent } from './agent-detection.js';

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
}

/** Describes the choice without failing (plan, status, doctor). */
export function describeBackendChoice(plan: ExecutionPlan, root: string, env: Record<string, string | undefined>): BackendChoice {
  const { backend } = plan;
  if (backend.name !== AUTO_BACKEND) {
    const reason = backend.source === 'tools' ? `chosen from the loop's agents (${backend.candidates.map((candidate) => candidate.backend).join(', ')})` : 'configured (`backend:` or --backend)';
    return { backend: backend.name, source: backend.source, reason };
  }
  const choice = chooseAgent(backend.candidates, root, env);
  if (!choice.ok) return { backend: null, source: backend.source, reason: choice.message, fix: choice.fix };
  const where = choice.from === 'scaffold' ? `the project's ${choice.tool}/skills scaffold` : `the pattern's tools (${choice.tool})`;
  const others = backend.candidates.filter((candidate) => candidate.backend !== choice.backend).map((candidate) => candidate.backend);
  return {
    backend: choice.backend,
    source: backend.source,
    binary: choice.binary,
    reason: `no backend configured; ${where} names it and ${choice.binary} is installed${others.length ? ` (also possible: ${others.join(', ')})` : ''}`,
  };
}

/**
 * The plan with its backend decided: unchanged when configured; for `auto`,
 * the chosen agent with its binary path as the `binary` setting. Throws
 * `BACKEND_NOT_FOUND` (exit 3) naming the package to install when no
 * candidate is installed.
 */
export function withChosenBackend(plan: ExecutionPlan, root: string, env: Record<string, string | undefined>): { plan: ExecutionPlan; choice: BackendChoice } {
  const choice = describeBackendChoice(plan, root, env);
  if (plan.backend.name !== AUTO_BACKEND) return { plan, choice };
  if (choice.backend === null) {
    throw new LoopRuntimeError('BACKEND_NOT_FOUND', `Loop ${plan.pattern.id} cannot run: ${choice.reason}`, { ...(choice.fix ? { fix: choice.fix } : {}) });
  }
  const options = { ...(choice.binary ? { binary: choice.binary } : {}), ...plan.backend.options };
  return { plan: { ...plan, backend: { ...plan.backend, name: choice.backend, options } }, choice };
}
