/**
 * Our own tool-calling agent loop, shared by the OpenAI and Ollama backends.
 * Between every model call it reserves budget, detects stalls, gates "done"
 * on evidence and compacts the context near the model's window.
 */
import { ZERO_USAGE, type AgentRequest, type AgentResult, type BackendFailure, type BackendFailureReason, type Usage } from '../../src/core/ports/index.js';
import { StallDetector, compactMessages, needsCompaction, planNextCall } from './loop-guards.js';
import { estimateTokens, type ChatModel, type LoopMessage, type ModelTurn } from './model.js';
import { parseCheckOutput, parseImplementOutput, parseTriageOutput } from './parse-output.js';
import { buildRolePrompt } from './prompt.js';
import { attemptFailure, ModelCallError, withRetry } from './retry.js';
import { toAbortSignal } from './to-abort-signal.js';
import { toolsForRole } from './tool-set.js';
import type { ToolOutcome, WorkspaceTool } from './tool-types.js';
import { addUsage, costOf, findPrice, type PriceTable } from './usage.js';

export interface ToolLoopOptions {
  model: ChatModel;
  /** Directory the tools work in: the worktree, or the project root for triage. */
  root: string;
  maxOutputTokens: number;
  /** Output ceiling below which a call is not worth making. Default min(1024, maxOutputTokens). */
  minOutputTokens?: number;
  /** The backend's own ceiling on turns; the request's `maxTurns` applies when it is lower. Default: no ceiling. */
  maxTurns?: number;
  prices?: PriceTable;
  defaultPrices?: PriceTable;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  maxAttempts?: number;
  baseDelayMs?: number;
  commandTimeoutMs?: number;
  /** Identical calls / failing commands before a tool is removed. Default 3. */
  stallLimit?: number;
}

const TRANSCRIPT_LIMIT = 20_000;

function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof ModelCallError) {
    return { status: error.status, code: error.code, type: error.type, error: error.message };
  }
  return { error: error instanceof Error ? error.message : String(error) };
}

const FAILURE_FIX: Partial<Record<BackendFailureReason, string>> = {
  'quota-exhausted': 'add credit or raise the quota for this API key, then run again. The loop stops instead of retrying.',
  auth: 'check the API key (or the server\'s credentials) in the backend settings or environment.',
  'rate-limited': 'lower the cadence or concurrency, or wait for the rate limit window to pass.',
  error: 'check that the model server is reachable and healthy.',
};

/**
 * Runs one role call through the tool loop. It makes at most
 * `min(request.maxTurns, options.maxTurns)` model calls and then stops with
 * `max-turns`; the answer is tagged with the request's role.
 *
 * @example
 * ```ts
 * const result = await runToolLoop(request, { model, root: request.workspace!.path, maxOutputTokens: 4096, maxTurns: 30, sleep });
 * ```
 */
export async function runToolLoop(request: AgentRequest, options: ToolLoopOptions): Promise<AgentResult> {
  const { model } = options;
  const maxTurns = Math.min(request.maxTurns, options.maxTurns ?? Infinity);
  const price = findPrice(model.model, options.prices, options.defaultPrices);
  const commands = request.role === 'implement' ? request.commands : undefined;
  const tools = toolsForRole(request.permissions, commands !== undefined);
  const byName = new Map<string, WorkspaceTool>(tools.map((tool) => [tool.definition.name, tool]));
  const disabled = new Map<string, string>();
  const stall = new StallDetector(options.stallLimit ?? 3);
  const prompt = buildRolePrompt(request, { finish: 'done-tool' });
  let messages: LoopMessage[] = [
    { role: 'system', content: prompt.system },
    { role: 'user', content: prompt.user },
  ];
  let usage: Usage = { ...ZERO_USAGE };
  let spent = 0;
  let calibration = 1;
  const modified = new Set<string>();
  const executed: string[] = [];
  const failures: string[] = [];
  const transcript: string[] = [];
  let evidenceNudged = false;
  let formatNudged = false;

  const log = (line: string) => transcript.push(line);
  const transcriptText = () => {
    const text = transcript.join('\n');
    return text.length > TRANSCRIPT_LIMIT ? `…${text.slice(-TRANSCRIPT_LIMIT)}` : text;
  };
  const fail = (reason: BackendFailureReason, message: string, retryable: boolean, detail?: Record<string, unknown>): BackendFailure => {
    log(`stop: ${reason}: ${message}`);
    return { ok: false, reason, message, retryable, usage, transcript: transcriptText(), ...(detail ? { detail } : {}) };
  };

  /** Decides what a final answer means for the role; returns a nudge to continue, or the result. */
  const finish = (text: string): { continueWith: string } | { result: AgentResult } => {
    if (request.role === 'implement') {
      if (modified.size === 0 && executed.length === 0) {
        if (!evidenceNudged) {
          evidenceNudged = true;
          return {
            continueWith:
              'You signalled that you are done, but you have not changed any file or run any command. The task requires a ' +
              'change in the workspace. Make the change now. If it truly cannot be done, explain exactly why and call done again.',
          };
        }
        return {
          result: fail('invalid-output', 'The implementer finished twice without writing a file or running a command, so there is no evidence of work.', false, {
            lastAnswer: text.slice(0, 2000),
          }),
        };
      }
      return { result: { ok: true, role: 'implement', output: parseImplementOutput(text, true), usage, transcript: transcriptText() } };
    }
    if (request.role === 'triage') {
      const parsed = parseTriageOutput(text);
      if (parsed.ok) return { result: { ok: true, role: 'triage', output: parsed.value, usage, transcript: transcriptText() } };
      if (!formatNudged) {
        formatNudged = true;
        return { continueWith: `${parsed.message} Call done again with only the JSON object in "result".` };
      }
      return { result: fail('invalid-output', parsed.message, false, { lastAnswer: text.slice(0, 2000) }) };
    }
    return { result: { ok: true, role: 'check', output: parseCheckOutput(text), usage, transcript: transcriptText() } };
  };

  if (request.maxTokens <= 0) return fail('budget', `No tokens are reserved for the ${request.role} call (maxTokens ${request.maxTokens}).`, false);

  for (let turn = 1; turn <= maxTurns; turn++) {
    if (request.signal?.aborted) return fail('aborted', 'The run was aborted.', true);
    const activeTools = tools.filter((tool) => !disabled.has(tool.definition.name)).map((tool) => tool.definition);

    if (needsCompaction(estimateTokens(messages, activeTools) * calibration, model.contextWindow, options.maxOutputTokens)) {
      const before = messages.length;
      messages = compactMessages(messages, { modifiedFiles: [...modified], failures: failures.slice(-5) });
      log(`turn ${turn}: compacted context from ${before} to ${messages.length} messages`);
    }

    const estimatedInput = Math.ceil(estimateTokens(messages, activeTools) * calibration);
    const plan = planNextCall({
      maxTokens: request.maxTokens,
      spent,
      estimatedInput,
      maxOutputTokens: options.maxOutputTokens,
      minOutputTokens: options.minOutputTokens ?? Math.min(1024, options.maxOutputTokens),
    });
    if (!plan.ok) return fail('budget', `${plan.message} Stopped before calling the model.`, false, { spent, maxTokens: request.maxTokens });

    const outcome = await withRetry<ModelTurn>(
      () => model.call({ messages, tools: activeTools, maxOutputTokens: plan.maxOutputTokens, ...(request.signal ? { signal: toAbortSignal(request.signal) } : {}) }),
      {
        sleep: options.sleep,
        ...(options.random ? { random: options.random } : {}),
        ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
        ...(options.baseDelayMs !== undefined ? { baseDelayMs: options.baseDelayMs } : {}),
        ...(request.signal ? { signal: toAbortSignal(request.signal) } : {}),
        onRetry: ({ attempt, delayMs, error }) => {
          log(`turn ${turn}: attempt ${attempt} failed (${describeError(error)['error']}); retrying in ${delayMs} ms`);
          request.onProgress?.({ type: 'retry', attempts: attempt, endpoint: model.endpoint ?? model.model, failure: attemptFailure(error) });
        },
      },
    );
    if (!outcome.ok) {
      const detail: Record<string, unknown> = { ...describeError(outcome.error), attempts: outcome.attempts };
      const fix = FAILURE_FIX[outcome.reason];
      return fail(
        outcome.reason,
        `The ${model.model} call failed after ${outcome.attempts} attempt(s): ${String(detail['error'])}.${fix ? ` To fix: ${fix}` : ''}`,
        outcome.retryable,
        detail,
      );
    }
    const reply = outcome.value;
    const turnTokens = reply.usage.inputTokens + reply.usage.outputTokens + reply.usage.cacheReadTokens + reply.usage.cacheWriteTokens;
    usage = addUsage(usage, { ...reply.usage, costUsd: costOf(reply.usage, price) });
    spent += turnTokens;
    const actualInput = reply.usage.inputTokens + reply.usage.cacheReadTokens + reply.usage.cacheWriteTokens;
    if (actualInput > 0 && estimatedInput > 0) calibration = Math.max(1, (actualInput / estimatedInput) * calibration);
    log(`turn ${turn}: ${turnTokens} tokens, ${reply.toolCalls.length} tool call(s), finish ${reply.finishReason}`);
    messages.push({ role: 'assistant', content: reply.text, toolCalls: reply.toolCalls });
    if (spent > request.maxTokens) {
      return fail('budget', `The model used ${spent} tokens, more than the ${request.maxTokens} reserved.`, false, { spent, maxTokens: request.maxTokens });
    }

    if (reply.toolCalls.length === 0) {
      const decided = finish(reply.text);
      if ('result' in decided) return decided.result;
      messages.push({ role: 'user', content: decided.continueWith });
      log(`turn ${turn}: answer without "done" not accepted; continuing`);
      continue;
    }

    let doneResult: string | undefined;
    const notices: string[] = [];
    for (const call of reply.toolCalls) {
      let result: ToolOutcome;
      const tool = byName.get(call.name);
      if (call.name === 'done') {
        doneResult = typeof call.arguments['result'] === 'string' ? call.arguments['result'] : reply.text;
        result = { ok: true, content: 'Noted.' };
      } else if (!tool) {
        result = { ok: false, content: `Error: there is no tool named "${call.name}" for this role.` };
      } else if (disabled.has(call.name)) {
        result = { ok: false, content: `Error: ${call.name} was removed: ${disabled.get(call.name)}` };
      } else if (call.argumentsError) {
        result = { ok: false, content: `Error: ${call.argumentsError}. Send the arguments as a JSON object.` };
      } else {
        try {
          result = await tool.run(call.arguments, {
            root: options.root,
            permissions: request.permissions,
            ...(commands ? { commands } : {}),
            commandTimeoutMs: options.commandTimeoutMs ?? 120_000,
            ...(request.signal ? { signal: toAbortSignal(request.signal) } : {}),
          });
        } catch (error) {
          result = { ok: false, content: `Error: ${call.name} failed: ${error instanceof Error ? error.message : String(error)}` };
        }
      }
      for (const path of result.wrote ?? []) modified.add(path);
      if (result.executed !== undefined) executed.push(result.executed);
      if (!result.ok) failures.push(`${call.name}: ${result.content.split('\n')[0]!.slice(0, 300)}`);
      log(`  ${call.name} ${JSON.stringify(call.arguments).slice(0, 200)} → ${result.ok ? 'ok' : result.content.split('\n')[0]!.slice(0, 200)}`);
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result.content });
      const verdict = tool && call.name !== 'done' ? stall.record(call, result) : null;
      if (verdict && !disabled.has(verdict.tool)) {
        disabled.set(verdict.tool, verdict.reason);
        notices.push(`The ${verdict.tool} tool has been removed for the rest of this task because ${verdict.reason}`);
        log(`  stall: removed ${verdict.tool}`);
      }
    }
    if (notices.length > 0) messages.push({ role: 'user', content: notices.join('\n') });
    if (doneResult !== undefined) {
      const decided = finish(doneResult);
      if ('result' in decided) return decided.result;
      messages.push({ role: 'user', content: decided.continueWith });
      log(`turn ${turn}: "done" not accepted; continuing`);
    }
  }
  return fail('max-turns', `The ${request.role} role used all ${maxTurns} turns without finishing. To fix: raise maxIterations for the loop (or the backend's maxTurns) or narrow the task.`, true, { maxTurns });
}
