/**
 * Pure mapping between our loop messages and Ollama's native `/api/chat`.
 * Tool-call arguments arrive as JSON objects (not strings), tool results go
 * back as `{role: "tool", tool_name}`, and usage is in the final chunk's
 * `prompt_eval_count` / `eval_count`.
 */
import { parseToolArguments, type LoopMessage, type ModelTurn, type ToolDefinition } from '../shared/model.js';
import { fromOllamaUsage } from '../shared/usage.js';

export type OllamaMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: { function: { name: string; arguments: Record<string, unknown> } }[] }
  | { role: 'tool'; content: string; tool_name: string };

export function toOllamaMessages(messages: readonly LoopMessage[]): OllamaMessage[] {
  return messages.map((message): OllamaMessage => {
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: message.content };
      case 'assistant':
        return message.toolCalls.length
          ? { role: 'assistant', content: message.content, tool_calls: message.toolCalls.map((call) => ({ function: { name: call.name, arguments: call.arguments } })) }
          : { role: 'assistant', content: message.content };
      case 'tool':
        return { role: 'tool', content: message.content, tool_name: message.name };
    }
  });
}

export function toOllamaTools(tools: readonly ToolDefinition[]) {
  return tools.map((tool) => ({ type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
}

/** One NDJSON line of a streamed /api/chat response. */
export interface OllamaChunk {
  model?: string;
  message?: { role?: string; content?: string; thinking?: string; tool_calls?: { id?: string; function?: { name?: string; arguments?: unknown; index?: number } }[] };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: string;
}

export class OllamaStreamAccumulator {
  private text = '';
  private readonly calls: ModelTurn['toolCalls'] = [];
  private final: OllamaChunk | null = null;

  constructor(private readonly callPrefix: string) {}

  push(chunk: OllamaChunk): void {
    if (chunk.message?.content) this.text += chunk.message.content;
    for (const call of chunk.message?.tool_calls ?? []) {
      const id = call.id ?? `${this.callPrefix}_${this.calls.length}`;
      this.calls.push({ id, name: call.function?.name ?? '', ...parseToolArguments(call.function?.arguments ?? {}) });
    }
    if (chunk.done) this.final = chunk;
  }

  get finished(): boolean {
    return this.final !== null;
  }

  result(): ModelTurn {
    return {
      text: this.text,
      toolCalls: this.calls,
      usage: fromOllamaUsage(this.final ?? {}),
      finishReason: this.final?.done_reason ?? (this.final ? 'stop' : 'incomplete'),
    };
  }
}
