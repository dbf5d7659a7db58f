/**
 * Pure mapping from what an `opencode run` produced (the final text, the
 * steps' usage, an `error` event, the exit code, whether we stopped it) to an
 * AgentResult. An `error` event or a non-zero exit is a failure whatever text
 * came before it.
 */
import type { AgentResult, AgentRole, BackendFailure, BackendFailureReason, Usage } from '../../src/core/ports/index.js';
import { parseCheckOutput, parseImplementOutput, parseTriageOutput } from '../shared/parse-output.js';
import { costOf, findPrice, type PriceTable } from '../shared/usage.js';
import type { StopReason } from '../shared/cli-process.js';

export interface CliRunFacts {
  /** Which CLI, for messages: "OpenCode", "Gemini CLI". */
  cli: string;
  role: AgentRole;
  /** The model's final answer text. */
  text: string;
  usage: Omit<Usage, 'costUsd'>;
  /** The CLI's own cost, when it reports one. */
  reportedCost: number | null;
  model?: string;
  prices?: PriceTable;
  /** Message, HTTP status and error name from the CLI's error event, if any. */
  error?: { name?: string; message: string; status?: number; retryable?: boolean };
  exitCode: number | null;
  signal: string | null;
  stoppedFor?: StopReason;
  /** A reason the CLI's own exit code already decides (e.g. gemini's 41 auth, 53 turn limit). */
  exitReason?: BackendFailureReason;
  turns: number;
  maxTurns: number;
  maxTokens: number;
  stderrTail: string;
  transcript?: string;
  /** How to fix auth for this CLI. */
  authFix: string;
}

const AUTH_TEXT = /api key not valid|invalid api key|incorrect api key|invalid x-api-key|unauthori[sz]ed|authentication|permission denied|not logged in|api_key_invalid|\b401\b/i;
const QUOTA_TEXT = /insufficient[_ ]quota|exceeded your current quota|credit balance|billing|quota exceeded/i;
const RATE_TEXT = /rate limit|too many requests|resource_exhausted|\b429\b/i;
const CONTEXT_TEXT = /context length|context window|context_length_exceeded|too many tokens|maximum context|prompt is too long|exceeds the maximum number of tokens/i;

export function classifyCliError(facts: Pick<CliRunFacts, 'error' | 'stderrTail' | 'authFix'>): { reason: BackendFailureReason; retryable: boolean; fix: string } {
  const status = facts.error?.status;
  const text = `${facts.error?.name ?? ''} ${facts.error?.message ?? ''} ${facts.stderrTail}`;
  if (status === 401 || status === 403 || AUTH_TEXT.test(text)) return { reason: 'auth', retryable: false, fix: facts.authFix };
  if (status === 402 || QUOTA_TEXT.test(text)) {
    return { reason: 'quota-exhausted', retryable: false, fix: 'add credit or wait for the plan\'s quota to reset; the loop stops instead of retrying.' };
  }
  if (CONTEXT_TEXT.test(text)) {
    return { reason: 'error', retryable: false, fix: 'the conversation outgrew the model\'s context window: narrow the task, or use a model with a larger context.' };
  }
  if (status === 429 || RATE_TEXT.test(text)) return { reason: 'rate-limited', retryable: true, fix: 'lower the loop\'s cadence or wait for the rate limit window.' };
  if (status !== undefined && status >= 500) return { reason: 'error', retryable: true, fix: 'try again later; the API is failing or overloaded.' };
  return { reason: 'error', retryable: facts.error?.retryable ?? false, fix: 'read the detail and stderr below; run the same command by hand to reproduce.' };
}

function usageOf(facts: CliRunFacts): Usage {
  const override = facts.model && facts.prices ? findPrice(facts.model, facts.prices, {}) : null;
  const costUsd = override ? costOf(facts.usage, override) : facts.reportedCost ?? (facts.model ? costOf(facts.usage, findPrice(facts.model)) : null);
  return { ...facts.usage, costUsd };
}

const tokensOf = (usage: Usage) => usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;

/**
 * @example
 * ```ts
 * mapCliResult({ cli: 'OpenCode', role: 'check', text: '## Verdict: APPROVE', usage, reportedCost: null, exitCode: 0, … });
 * ```
 */
export function mapCliResult(facts: CliRunFacts): AgentResult {
  const usage = usageOf(facts);
  const base = { usage, ...(facts.transcript !== undefined ? { transcript: facts.transcript } : {}) };
  const detail: Record<string, unknown> = {
    exitCode: facts.exitCode,
    signal: facts.signal,
    turns: facts.turns,
    ...(facts.error ? { error: facts.error } : {}),
    ...(facts.stderrTail ? { stderr: facts.stderrTail } : {}),
  };
  const fail = (reason: BackendFailureReason, message: string, retryable: boolean): BackendFailure => ({ ok: false, reason, message, retryable, detail, ...base });
  const { cli, role } = facts;

  switch (facts.stoppedFor) {
    case 'budget':
      return fail('budget', `${cli} was stopped after ${tokensOf(usage)} tokens: the ${facts.maxTokens}-token reservation for the ${role} call was reached.`, false);
    case 'max-turns':
      return fail('max-turns', `${cli} used all ${facts.maxTurns} turns on the ${role} call and still wanted more; it was stopped. To fix: raise maxTurns or narrow the task.`, false);
    case 'timeout':
      return fail('timeout', `${cli} did not finish the ${role} call in time and was stopped. To fix: raise timeoutMs or narrow the task.`, true);
    case 'aborted':
      return fail('aborted', `The run was aborted; ${cli} was stopped.`, true);
    case undefined:
      break;
  }
  if (facts.exitReason === 'max-turns') {
    return fail('max-turns', `${cli} hit its turn limit (${facts.maxTurns}) on the ${role} call without finishing. To fix: raise maxTurns or narrow the task.`, false);
  }
  if (facts.error || facts.exitReason || (facts.exitCode !== 0 && facts.exitCode !== null) || facts.signal) {
    const verdict = facts.exitReason === 'auth' ? { reason: 'auth' as const, retryable: false, fix: facts.authFix } : classifyCliError(facts);
    const what = facts.error?.message ?? (facts.stderrTail.split('\n').find((line) => line.trim()) || 'no message');
    return fail(
      verdict.reason,
      `${cli} failed on the ${role} call (exit ${facts.exitCode ?? 'none'}${facts.error?.status ? `, HTTP ${facts.error.status}` : ''}): ${what.trim().slice(0, 500)}. To fix: ${verdict.fix}`,
      verdict.retryable,
    );
  }
  switch (role) {
    case 'triage': {
      const parsed = parseTriageOutput(facts.text);
      if (!parsed.ok) return fail('invalid-output', parsed.message, false);
      return { ok: true, role: 'triage', output: parsed.value, ...base };
    }
    case 'check':
      return { ok: true, role: 'check', output: parseCheckOutput(facts.text), ...base };
    case 'implement':
      return { ok: true, role: 'implement', output: parseImplementOutput(facts.text, true), ...base };
  }
}
