/**
 * Token accounting for the fake model servers, computed from the real request
 * bodies the backends send, so a benchmark (scripts/bench-tokens.js) can
 * compare prompts without a tokenizer.
 *
 * The approximation is documented and the same for every protocol: a token is
 * 4 characters of the request serialized in the provider's cache order with
 * cache markers removed — Anthropic Messages `[tools, system, messages]`,
 * OpenAI Chat Completions `[tools, messages]` (tool definitions are rendered
 * before the conversation). The shared prefix of a call is the longest common
 * prefix of that serialization with the previous call's, in the same unit: the
 * part a provider's prompt cache could serve.
 */

/** Characters per token in the approximation (OpenAI's and Anthropic's rule of thumb for English and code). */
export const CHARS_PER_TOKEN = 4;

export type WireProtocol = 'anthropic-messages' | 'openai-chat';
export type MeteredRole = 'triage' | 'implement' | 'check' | 'other';

export interface MeteredCall {
  role: MeteredRole;
  inputTokens: number;
  outputTokens: number;
  /** Input tokens in the prefix shared with the previous call the server saw. */
  sharedPrefixTokens: number;
  /** Cache breakpoints the request marked (`cache_control`). */
  cacheMarks: number;
}

/**
 * @example
 * ```ts
 * approxTokens('abcdefgh'); // → 2
 * ```
 */
export function approxTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function withoutCacheMarks(value: unknown, marks: { count: number }): unknown {
  if (Array.isArray(value)) return value.map((entry) => withoutCacheMarks(entry, marks));
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key === 'cache_control') {
      marks.count++;
      continue;
    }
    copy[key] = withoutCacheMarks(entry, marks);
  }
  return copy;
}

/**
 * The prompt part of a request body in the provider's cache order, without cache markers.
 *
 * @example
 * ```ts
 * cacheOrderedPrompt('openai-chat', { model: 'm', messages: [{ role: 'user', content: 'hi' }] }).text;
 * // → '[[],[{"role":"user","content":"hi"}]]'
 * ```
 */
export function cacheOrderedPrompt(protocol: WireProtocol, body: any): { text: string; cacheMarks: number } {
  const marks = { count: 0 };
  const parts = protocol === 'anthropic-messages' ? [body?.tools ?? [], body?.system ?? '', body?.messages ?? []] : [body?.tools ?? [], body?.messages ?? []];
  const text = JSON.stringify(withoutCacheMarks(parts, marks));
  return { text, cacheMarks: marks.count };
}

/** Length of the longest common prefix of two strings. */
export function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

/** The loop role a request serves, read from our role prompt; `other` for the CLI's own side requests. */
export function roleOfPrompt(text: string): MeteredRole {
  if (text.includes('You are the TRIAGE role')) return 'triage';
  if (text.includes('You are the IMPLEMENTER role')) return 'implement';
  if (text.includes('You are the CHECKER role')) return 'check';
  return 'other';
}

/**
 * Meters every model request a fake serves. One meter per measured loop; `reset()` between loops.
 *
 * @example
 * ```ts
 * const meter = new TokenMeter();
 * const server = await startFakeOpenAIServer(steps, { meter });
 * // … run a tick …
 * meter.calls; // [{ role: 'triage', inputTokens: 1834, outputTokens: 52, sharedPrefixTokens: 0, cacheMarks: 0 }, …]
 * ```
 */
export class TokenMeter {
  readonly calls: MeteredCall[] = [];
  private previous: string | null = null;

  /** Records a request; the returned call gets its output tokens from `output`. */
  input(protocol: WireProtocol, body: unknown): MeteredCall {
    const { text, cacheMarks } = cacheOrderedPrompt(protocol, body);
    const shared = this.previous === null ? 0 : commonPrefixLength(this.previous, text);
    const role = roleOfPrompt(text);
    // A CLI's own side requests (titles, quota checks) are not the loop's calls.
    if (role !== 'other') this.previous = text;
    const call: MeteredCall = {
      role,
      inputTokens: approxTokens(text),
      outputTokens: 0,
      // Whole tokens only: a prefix that ends mid-token does not count the partial one.
      sharedPrefixTokens: Math.floor(shared / CHARS_PER_TOKEN),
      cacheMarks,
    };
    this.calls.push(call);
    return call;
  }

  /** Sets a call's output tokens from the serialized reply. */
  output(call: MeteredCall, reply: unknown): number {
    call.outputTokens = approxTokens(typeof reply === 'string' ? reply : JSON.stringify(reply));
    return call.outputTokens;
  }

  reset(): void {
    this.calls.length = 0;
    this.previous = null;
  }
}
