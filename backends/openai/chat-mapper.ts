/**
 * Pure mapping between our loop messages and OpenAI Chat Completions, and a
 * reducer for the streamed chunks (text deltas, tool_call deltas by index,
 * and the final usage-only chunk sent with `stream_options.include_usage`).
 */
import { parseToolArguments, type LoopMessage, type ModelTurn, type ToolDefinition } from '../shared/model.js';
import { fromOpenAIChatUsage } from '../shared/usage.js';

export type ChatMessageParam =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export function toChatMessages(messages: readonly LoopMessage[]): ChatMessageParam[] {
  return messages.map((message): ChatMessageParam => {
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: message.content };
      case 'assistant':
        return message.toolCalls.length === 0
          ? { role: 'assistant', content: message.content }
          : {
              role: 'assistant',
              content: message.content === '' ? null : message.content,
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
              })),
            };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    }
  });
}

export function toChatTools(tools: readonly ToolDefinition[]) {
  return tools.map((tool) => ({
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** The subset of a streamed chunk we read. */
export interface ChatChunk {
  choices?: {
    index?: number;
    delta?: {
      content?: string | null;
      tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
    };
    finish_reason?: string | null;
  }[];
  usage?: unknown;
}

/** Folds streamed chunks into one turn. */
export class ChatStreamAccumulator {
  private text = '';
  private finishReason = 'unknown';
  private usage: unknown = null;
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();

  push(chunk: ChatChunk): void {
    if (chunk.usage) this.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      if (choice.delta?.content) this.text += choice.delta.content;
      for (const delta of choice.delta?.tool_calls ?? []) {
        const current = this.calls.get(delta.index) ?? { id: '', name: '', arguments: '' };
        if (delta.id) current.id = delta.id;
        if (delta.function?.name) current.name += delta.function.name;
        if (delta.function?.arguments) current.arguments += delta.function.arguments;
        this.calls.set(delta.index, current);
      }
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  result(): ModelTurn {
    const toolCalls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({ id: call.id || `call_${index}`, name: call.name, ...parseToolArguments(call.arguments) }));
    return { text: this.text, toolCalls, usage: fromOpenAIChatUsage(this.usage), finishReason: this.finishReason };
  }
}
