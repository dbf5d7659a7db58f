/**
 * The small chat-model port our own tool loop drives. The OpenAI and Ollama
 * adapters implement it; the loop itself knows nothing about either wire format.
 */
import type { Usage } from '../../src/core/ports/index.js';

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed arguments; `{}` when the model sent something unparseable (see `argumentsError`). */
  arguments: Record<string, unknown>;
  /** Set when the raw arguments were not a JSON object. */
  argumentsError?: string;
}

export type LoopMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/** JSON-schema function tool. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelTurnRequest {
  messages: readonly LoopMessage[];
  tools: readonly ToolDefinition[];
  maxOutputTokens: number;
  signal?: AbortSignal;
}

export interface ModelTurn {
  text: string;
  toolCalls: ToolCall[];
  /** Token counts of this call (cost is computed by the loop from the price table). */
  usage: Omit<Usage, 'costUsd'>;
  /** Provider finish reason, e.g. "stop", "tool_calls", "length". */
  finishReason: string;
}

/**
 * One provider's chat endpoint. Throws `ModelCallError` for HTTP/transport
 * failures so the shared retry policy can classify them.
 */
export interface ChatModel {
  /** Provider/model name for transcripts and price lookup, e.g. "gpt-4o-mini". */
  readonly model: string;
  /** Context window in tokens, used for compaction. */
  readonly contextWindow: number;
  /** The endpoint the user configured, named on the progress line while a call is retried. */
  readonly endpoint?: string;
  call(request: ModelTurnRequest): Promise<ModelTurn>;
}

/** Parses tool arguments that arrive as a JSON string (OpenAI) or an object (Ollama). */
export function parseToolArguments(raw: unknown): Pick<ToolCall, 'arguments' | 'argumentsError'> {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return { arguments: raw as Record<string, unknown> };
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { arguments: {} };
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { arguments: parsed as Record<string, unknown> };
    } catch {
      // fall through
    }
    return { arguments: {}, argumentsError: `arguments are not a JSON object: ${raw.slice(0, 200)}` };
  }
  return { arguments: {}, argumentsError: 'arguments missing' };
}

/** Rough token estimate (≈4 characters per token) for reservations and compaction. */
export function estimateTokens(messages: readonly LoopMessage[], tools: readonly ToolDefinition[] = []): number {
  let characters = 0;
  for (const message of messages) {
    characters += message.content.length + 16;
    if (message.role === 'assistant') {
      for (const call of message.toolCalls) characters += call.name.length + JSON.stringify(call.arguments).length + 16;
    }
  }
  for (const tool of tools) characters += tool.name.length + tool.description.length + JSON.stringify(tool.parameters).length;
  return Math.ceil(characters / 4);
}
