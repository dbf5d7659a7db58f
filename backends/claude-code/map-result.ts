/**
 * Pure mapping from what the CLI run produced (the final `result` event, the
 * exit code, whether we killed it, stderr) to an AgentResult. API errors
 * arrive as `subtype: "success"` with `is_error: true`, so `is_error` and the
 * exit code decide, never the subtype alone.
 */
import type { AgentResult, AgentRole, BackendFailure, BackendFailureReason, Usage } from '../../src/core/ports/index.js';
import { parseCheckOutput, parseImplementOutput, parseTriageOutput } from '../shared/parse-output.js';
import { costOf, findPrice, fromAnthropicUsage, type PriceTable } from '../shared/usage.js';
import type { ResultEvent } from './stream-events.js';

export interface ClaudeRunFacts {
  role: AgentRole;
  result: ResultEvent | null;
  exitCode: number | null;
  signal: string | null;
  /** Set when we stopped the process ourselves. */
  killedFor?: 'budget' | 'timeout' | 'aborted';
  /** Token counts seen while streaming (used when there is no result event). */
  streamedUsage: Omit<Usage, 'costUsd'>;
  /** `error` field of the last synthetic assistant message, e.g. "authentication_failed". */
  assistantError?: string;
  model?: string;
  stderrTail: string;
  maxTokens: number;
  prices?: PriceTable;
  transcript?: string;
}

const AUTH_TEXT = /not logged in|please run \/login|invalid api key|authentication|oauth token|\b(?:status|error|API Error:?)\s*40[13]\b/i;
const QUOTA_TEXT = /credit balance is too low|insufficient[_ ]quota|billing|usage limit reached|quota/i;

function usageOf(facts: ClaudeRunFacts): Usage {
  const counts = facts.result?.usage ? fromAnthropicUsage(facts.result.usage) : facts.streamedUsage;
  const override = facts.model && facts.prices ? findPrice(facts.model, facts.prices, {}) : null;
  const reported = facts.result?.total_cost_usd;
  const costUsd = override ? costOf(counts, override) : typeof reported === 'number' ? reported : facts.model ? costOf(counts, findPrice(facts.model)) : null;
  return { ...counts, costUsd };
}

function classifyError(facts: ClaudeRunFacts, text: string): { reason: BackendFailureReason; retryable: boolean; fix: string } {
  const status = facts.result?.api_error_status ?? undefined;
  // A status that says what happened decides before any text: a 529's transcript may well mention "authentication"
  // or a "401" duration. A generic one (400: "Your credit balance is too low") leaves it to the text.
  const textDecides = status === undefined || !(status >= 500 || [401, 402, 403, 429].includes(status));
  if (facts.assistantError === 'authentication_failed' || status === 401 || status === 403 || (textDecides && AUTH_TEXT.test(text))) {
    return { reason: 'auth', retryable: false, fix: 'log in with `claude /login`, or set ANTHROPIC_API_KEY for the backend (or its isolated home).' };
  }
  if (status === 402 || facts.assistantError === 'billing_error' || (textDecides && QUOTA_TEXT.test(text))) {
    return { reason: 'quota-exhausted', retryable: false, fix: 'add credit or wait for the plan\'s usage window to reset; the loop stops instead of retrying.' };
  }
  if (status === 429 || facts.assistantError === 'rate_limit') {
    return { reason: 'rate-limited', retryable: true, fix: 'lower the cadence, or raise CLAUDE_CODE_MAX_RETRIES.' };
  }
  if (status !== undefined && status >= 500) return { reason: 'error', retryable: true, fix: 'try again later; the API is failing or overloaded.' };
  return { reason: 'error', retryable: false, fix: 'read the detail and stderr below; run the same command by hand to reproduce.' };
}

/**
 * @example
 * ```ts
 * mapClaudeResult({ role: 'check', result, exitCode: 0, signal: null, streamedUsage, stderrTail: '', maxTokens: 10_000 });
 * ```
 */
export function mapClaudeResult(facts: ClaudeRunFacts): AgentResult {
  const usage = usageOf(facts);
  const base = { usage, ...(facts.transcript !== undefined ? { transcript: facts.transcript } : {}) };
  const detail: Record<string, unknown> = {
    exitCode: facts.exitCode,
    signal: facts.signal,
    ...(facts.result
      ? {
          subtype: facts.result.subtype,
          isError: facts.result.is_error,
          apiErrorStatus: facts.result.api_error_status ?? null,
          terminalReason: facts.result.terminal_reason ?? null,
          numTurns: facts.result.num_turns ?? null,
          permissionDenials: facts.result.permission_denials.map((denial) => denial.tool_name),
        }
      : {}),
    ...(facts.stderrTail ? { stderr: facts.stderrTail } : {}),
  };
  const fail = (reason: BackendFailureReason, message: string, retryable: boolean): BackendFailure => ({ ok: false, reason, message, retryable, detail, ...base });

  if (facts.killedFor === 'budget') {
    return fail('budget', `Claude Code was stopped after ${usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens} tokens: the ${facts.maxTokens}-token reservation for the ${facts.role} call was reached while it was streaming.`, false);
  }
  if (facts.killedFor === 'timeout') return fail('timeout', `Claude Code did not finish the ${facts.role} call in time and was stopped. To fix: raise timeoutMs or narrow the task.`, true);
  if (facts.killedFor === 'aborted') return fail('aborted', 'The run was aborted; Claude Code was stopped.', true);

  const result = facts.result;
  if (!result) {
    const text = facts.stderrTail;
    const verdict = classifyError(facts, text);
    return fail(verdict.reason, `Claude Code exited (code ${facts.exitCode ?? 'none'}${facts.signal ? `, signal ${facts.signal}` : ''}) without a result event. To fix: ${verdict.fix}`, verdict.retryable);
  }
  if (result.subtype === 'error_max_turns' || result.terminal_reason === 'max_turns') {
    return fail('max-turns', `Claude Code used all its turns (${result.num_turns ?? '?'}) on the ${facts.role} call without finishing. To fix: raise maxTurns or narrow the task.`, false);
  }
  if (result.is_error || (facts.exitCode !== 0 && facts.exitCode !== null)) {
    const text = [result.result ?? '', ...(result.errors ?? [])].join(' ');
    const verdict = classifyError(facts, text);
    return fail(verdict.reason, `Claude Code reported an error (${result.subtype}${result.api_error_status ? `, HTTP ${result.api_error_status}` : ''}): ${text.trim().slice(0, 500) || 'no message'}. To fix: ${verdict.fix}`, verdict.retryable);
  }

  const text = result.result ?? '';
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
