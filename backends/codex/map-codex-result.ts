/**
 * Pure mapping from what a `codex exec` run produced — the final agent
 * message, turn.failed/error texts, the exit code, the provider's own error
 * (seen by the meter) and whether we stopped it — to an AgentResult.
 * codex 0.169 exits 1 for every failed turn, so the reason comes from the
 * provider's status and code first and Codex's message text second.
 */
import type { AgentResult, AgentRole, BackendFailure, BackendFailureReason, Usage } from '../../src/core/ports/index.js';
import { parseCheckOutput, parseImplementOutput, parseTriageOutput } from '../shared/parse-output.js';
import { costOf, findPrice, type PriceTable } from '../shared/usage.js';
import type { ProviderError } from '../../src/adapters/agent-sandbox/model-proxy.js';

export interface CodexRunFacts {
  role: AgentRole;
  /** Text of the last `agent_message` item, or null when none arrived. */
  finalMessage: string | null;
  /** `turn.completed` was seen. */
  completed: boolean;
  /** Messages of `turn.failed` / `error` events, in order. */
  errors: string[];
  exitCode: number | null;
  signal: string | null;
  killedFor?: 'budget' | 'timeout' | 'aborted';
  /** The meter refused a call past the turn limit. */
  turnLimitReached: boolean;
  maxTurns: number;
  providerError: ProviderError | null;
  usage: Omit<Usage, 'costUsd'>;
  model: string;
  maxTokens: number;
  stderrTail: string;
  prices?: PriceTable;
  transcript?: string;
  apiKeyEnv: string;
}

const AUTH_TEXT = /401 unauthorized|403 forbidden|incorrect api key|invalid[_ ]api[_ ]key|missing api key|authentication|not logged in/i;
const QUOTA_TEXT = /quota exceeded|insufficient[_ ]quota|billing|credit balance/i;
const RATE_TEXT = /429 too many requests|rate limit|rate_limit/i;
const CONTEXT_TEXT = /context window|context_length_exceeded|maximum context length/i;

function classify(facts: CodexRunFacts, text: string): { reason: BackendFailureReason; retryable: boolean; fix: string } {
  const provider = facts.providerError;
  const code = provider?.code ?? '';
  if (provider?.status === 401 || provider?.status === 403 || code === 'invalid_api_key' || AUTH_TEXT.test(text)) {
    return { reason: 'auth', retryable: false, fix: `set ${facts.apiKeyEnv} to a valid key for the backend's endpoint (or "apiKeyEnv" to the variable that holds it).` };
  }
  if (code === 'insufficient_quota' || QUOTA_TEXT.test(text)) {
    return { reason: 'quota-exhausted', retryable: false, fix: 'add credit or raise the account\'s quota; the loop stops instead of retrying.' };
  }
  if (provider?.status === 429 || code === 'rate_limit_exceeded' || RATE_TEXT.test(text)) {
    return { reason: 'rate-limited', retryable: true, fix: 'lower the cadence, or raise the backend\'s maxRetries.' };
  }
  if (code === 'context_length_exceeded' || CONTEXT_TEXT.test(text)) {
    return { reason: 'error', retryable: false, fix: 'the conversation outgrew the model\'s context window: narrow the task or use a model with a larger window.' };
  }
  if (provider && provider.status >= 500) return { reason: 'error', retryable: true, fix: 'try again later; the API is failing.' };
  return { reason: 'error', retryable: false, fix: 'read the detail and stderr; run the same `codex exec` by hand to reproduce.' };
}

/**
 * @example
 * ```ts
 * mapCodexResult({ role: 'check', finalMessage: '## Verdict: APPROVE', completed: true, errors: [], exitCode: 0, ... });
 * ```
 */
export function mapCodexResult(facts: CodexRunFacts): AgentResult {
  const price = facts.prices ? findPrice(facts.model, facts.prices, {}) : findPrice(facts.model);
  const usage: Usage = { ...facts.usage, costUsd: price ? costOf(facts.usage, price) : null };
  const spent = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  const base = { usage, ...(facts.transcript !== undefined ? { transcript: facts.transcript } : {}) };
  const detail: Record<string, unknown> = {
    exitCode: facts.exitCode,
    signal: facts.signal,
    ...(facts.providerError ? { providerStatus: facts.providerError.status, providerCode: facts.providerError.code ?? null } : {}),
    ...(facts.errors.length ? { errors: facts.errors } : {}),
    ...(facts.stderrTail ? { stderr: facts.stderrTail } : {}),
  };
  const fail = (reason: BackendFailureReason, message: string, retryable: boolean): BackendFailure => ({ ok: false, reason, message, retryable, detail, ...base });

  if (facts.killedFor === 'budget') {
    return fail('budget', `Codex was stopped after ${Math.round(spent)} tokens: the ${facts.maxTokens}-token reservation for the ${facts.role} call was reached while it was streaming.`, false);
  }
  if (facts.killedFor === 'timeout') return fail('timeout', `Codex did not finish the ${facts.role} call in time and was stopped. To fix: raise timeoutMs or narrow the task.`, true);
  if (facts.killedFor === 'aborted') return fail('aborted', 'The run was aborted; Codex was stopped.', true);
  if (facts.turnLimitReached) {
    return fail('max-turns', `Codex used all its ${facts.maxTurns} model calls on the ${facts.role} call without finishing. To fix: raise the loop's maxIterations or narrow the task.`, false);
  }
  if (!facts.completed || facts.exitCode !== 0) {
    const text = [facts.providerError?.message ?? '', ...facts.errors, facts.stderrTail].join(' ').trim();
    const verdict = classify(facts, text);
    const status = facts.providerError?.status ? `, HTTP ${facts.providerError.status}` : '';
    return fail(verdict.reason, `Codex failed (exit ${facts.exitCode ?? 'none'}${facts.signal ? `, signal ${facts.signal}` : ''}${status}): ${text.slice(0, 400) || 'no message'}. To fix: ${verdict.fix}`, verdict.retryable);
  }

  const text = facts.finalMessage ?? '';
  switch (facts.role) {
    case 'triage': {
      const parsed = parseTriageOutput(text);
      if (!parsed.ok) return fail('invalid-output', parsed.message, false);
      return { ok: true, role: 'triage', output: parsed.value, ...base };
    }
    case 'check':
      return { ok: true, role: 'check', output: parseCheckOutput(text), ...base };
    case 'implement':
      return { ok: true, role: 'implement', output: parseImplementOutput(text, true), ...base };
  }
}
