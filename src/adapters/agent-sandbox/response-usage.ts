/**
 * What one model response cost, read from what the provider answered: the
 * usage fields of every wire format an agent CLI speaks — Anthropic Messages
 * (`message_start` / `message_delta`, or a JSON message), OpenAI Responses
 * (`response.completed` / `response.incomplete`), OpenAI Chat Completions
 * (a `usage` object or chunk) and Gemini (`usageMetadata`). Pure.
 *
 * Streamed output deltas are estimated (4 characters a token) only so that a
 * runaway stream can be stopped before its final usage arrives; exact usage
 * replaces the estimate as soon as it is known. The request's input is never
 * estimated: a response that never answered, or answered an error, costs 0.
 */

export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export const ZERO_COUNTS: Readonly<TokenCounts> = Object.freeze({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

/** An error the provider reported inside a 200 stream (Anthropic `error`, Responses `response.failed`). */
export interface StreamError {
  code?: string;
  message: string;
}

const CHARS_PER_TOKEN = 4;
const RESPONSES_DELTAS = new Set([
  'response.output_text.delta',
  'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta',
  'response.reasoning_text.delta',
  'response.reasoning_summary_text.delta',
]);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);
const has = (object: Json, key: string) => typeof object[key] === 'number';

export function sumCounts(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

export function totalOf(counts: TokenCounts): number {
  return counts.inputTokens + counts.outputTokens + counts.cacheReadTokens + counts.cacheWriteTokens;
}

/**
 * The usage of one response, fed one decoded JSON event (an SSE `data:` line,
 * a JSON line, or a whole JSON body) at a time.
 *
 * @example
 * ```ts
 * const usage = new ResponseUsage();
 * usage.observe({ type: 'message_start', message: { usage: { input_tokens: 100, output_tokens: 1 } } });
 * usage.observe({ type: 'message_delta', usage: { output_tokens: 20 } });
 * usage.counts(); // { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 }
 * ```
 */
export class ResponseUsage {
  private exact: Partial<TokenCounts> = {};
  private estimatedChars = 0;
  private final = false;
  error: StreamError | null = null;

  /** Returns true when the counts changed. */
  observe(event: unknown): boolean {
    if (!isObject(event)) return false;
    const before = JSON.stringify(this.counts());
    this.read(event);
    return JSON.stringify(this.counts()) !== before;
  }

  counts(): TokenCounts {
    const exactOutput = this.exact.outputTokens ?? 0;
    const estimate = this.estimatedChars / CHARS_PER_TOKEN;
    return {
      inputTokens: this.exact.inputTokens ?? 0,
      outputTokens: this.final ? exactOutput : Math.max(exactOutput, estimate),
      cacheReadTokens: this.exact.cacheReadTokens ?? 0,
      cacheWriteTokens: this.exact.cacheWriteTokens ?? 0,
    };
  }

  private set(fields: Partial<TokenCounts>, final: boolean): void {
    this.exact = { ...this.exact, ...fields };
    if (final) this.final = true;
  }

  private read(event: Json): void {
    const type = typeof event['type'] === 'string' ? event['type'] : '';
    // Anthropic Messages.
    if (type === 'message_start' && isObject(event['message']) && isObject(event['message']['usage'])) return this.set(anthropic(event['message']['usage']), false);
    if (type === 'message_delta' && isObject(event['usage'])) return this.set(anthropic(event['usage']), true);
    if (type === 'message' && isObject(event['usage'])) return this.set(anthropic(event['usage']), true);
    if (type === 'content_block_delta' && isObject(event['delta'])) {
      const delta = event['delta'];
      for (const key of ['text', 'partial_json', 'thinking']) if (typeof delta[key] === 'string') this.estimatedChars += (delta[key] as string).length;
      return;
    }
    if (type === 'error' && isObject(event['error'])) {
      this.error = streamError(event['error']);
      return;
    }
    // OpenAI Responses.
    if (RESPONSES_DELTAS.has(type) && typeof event['delta'] === 'string') {
      this.estimatedChars += event['delta'].length;
      return;
    }
    if ((type === 'response.completed' || type === 'response.incomplete') && isObject(event['response'])) {
      const usage = event['response']['usage'];
      return this.set(isObject(usage) ? responses(usage) : {}, true);
    }
    if (type === 'response.failed' && isObject(event['response'])) {
      const failure = event['response']['error'];
      this.error = isObject(failure) ? streamError(failure) : { message: 'response.failed' };
      const usage = event['response']['usage'];
      if (isObject(usage)) this.set(responses(usage), true);
      return;
    }
    if (event['object'] === 'response' && isObject(event['usage'])) return this.set(responses(event['usage']), true);
    // Gemini: every chunk carries the response's usage so far.
    if (isObject(event['usageMetadata'])) {
      const candidates = Array.isArray(event['candidates']) ? event['candidates'] : [];
      const finished = candidates.some((candidate) => isObject(candidate) && typeof candidate['finishReason'] === 'string');
      this.set(gemini(event['usageMetadata']), finished);
    }
    if (Array.isArray(event['candidates'])) {
      for (const candidate of event['candidates']) {
        const parts = isObject(candidate) && isObject(candidate['content']) && Array.isArray(candidate['content']['parts']) ? candidate['content']['parts'] : [];
        for (const part of parts) if (isObject(part) && typeof part['text'] === 'string') this.estimatedChars += part['text'].length;
      }
      return;
    }
    // OpenAI Chat Completions (a chunk with deltas, a usage chunk, or a whole completion).
    if (Array.isArray(event['choices'])) {
      for (const choice of event['choices']) {
        if (!isObject(choice) || !isObject(choice['delta'])) continue;
        const delta = choice['delta'];
        for (const key of ['content', 'reasoning_content', 'reasoning']) if (typeof delta[key] === 'string') this.estimatedChars += (delta[key] as string).length;
        for (const call of Array.isArray(delta['tool_calls']) ? delta['tool_calls'] : []) {
          if (isObject(call) && isObject(call['function']) && typeof call['function']['arguments'] === 'string') this.estimatedChars += call['function']['arguments'].length;
        }
      }
    }
    if (isObject(event['usage']) && has(event['usage'], 'prompt_tokens')) this.set(chat(event['usage']), true);
  }
}

function streamError(error: Json): StreamError {
  const code = typeof error['code'] === 'string' ? error['code'] : typeof error['type'] === 'string' ? error['type'] : undefined;
  return { message: typeof error['message'] === 'string' ? error['message'] : JSON.stringify(error).slice(0, 300), ...(code ? { code } : {}) };
}

function anthropic(usage: Json): Partial<TokenCounts> {
  const fields: Partial<TokenCounts> = {};
  if (has(usage, 'input_tokens')) fields.inputTokens = count(usage['input_tokens']);
  if (has(usage, 'output_tokens')) fields.outputTokens = count(usage['output_tokens']);
  if (has(usage, 'cache_read_input_tokens')) fields.cacheReadTokens = count(usage['cache_read_input_tokens']);
  if (has(usage, 'cache_creation_input_tokens')) fields.cacheWriteTokens = count(usage['cache_creation_input_tokens']);
  return fields;
}

function responses(usage: Json): TokenCounts {
  const details = isObject(usage['input_tokens_details']) ? usage['input_tokens_details'] : {};
  const cached = count(details['cached_tokens']);
  return { inputTokens: Math.max(0, count(usage['input_tokens']) - cached), outputTokens: count(usage['output_tokens']), cacheReadTokens: cached, cacheWriteTokens: 0 };
}

function chat(usage: Json): TokenCounts {
  const details = isObject(usage['prompt_tokens_details']) ? usage['prompt_tokens_details'] : {};
  const cached = count(details['cached_tokens']);
  return { inputTokens: Math.max(0, count(usage['prompt_tokens']) - cached), outputTokens: count(usage['completion_tokens']), cacheReadTokens: cached, cacheWriteTokens: 0 };
}

/** Gemini `usageMetadata` (promptTokenCount includes cached tokens; thoughts are billed as output). */
export function gemini(usage: Json): TokenCounts {
  const cached = count(usage['cachedContentTokenCount']);
  return {
    inputTokens: Math.max(0, count(usage['promptTokenCount']) + count(usage['toolUsePromptTokenCount']) - cached),
    outputTokens: count(usage['candidatesTokenCount']) + count(usage['thoughtsTokenCount']),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

/**
 * Feeds a response body to `usage` as it streams: SSE `data:` lines, JSON
 * lines, or (at `end`) one whole JSON body.
 */
export function createBodyReader(usage: ResponseUsage, onChange: () => void) {
  let pending = '';
  let whole = '';
  let lines = 0;
  const decoder = new TextDecoder();
  const line = (text: string) => {
    const trimmed = text.trim();
    const json = trimmed.startsWith('data:') ? trimmed.slice(5).trim() : trimmed;
    if (!json.startsWith('{')) return;
    try {
      lines++;
      if (usage.observe(JSON.parse(json))) onChange();
    } catch {
      lines--;
    }
  };
  return {
    push(chunk: Uint8Array): void {
      const text = decoder.decode(chunk, { stream: true });
      if (whole.length < 4 * 1024 * 1024) whole += text;
      pending += text;
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const part of parts) line(part);
    },
    end(): void {
      if (pending) line(pending);
      pending = '';
      // A pretty-printed JSON body parses as no line: read it whole.
      if (lines === 0 && whole.trim().startsWith('{')) line(whole.replace(/\n/g, ' '));
    },
  };
}
