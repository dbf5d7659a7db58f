/**
 * Pure mapping between our loop messages and the OpenAI Responses API
 * (stateless: `store: false`, the whole conversation is sent as input items).
 */
import { parseToolArguments, type LoopMessage, type ModelTurn, type ToolDefinition } from '../shared/model.js';
import { fromOpenAIResponsesUsage } from '../shared/usage.js';

export type ResponseInputItem =
  | { role: 'user' | 'assistant' | 'developer'; content: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

/** System messages become `instructions`; the rest become input items. */
export function toResponsesInput(messages: readonly LoopMessage[]): { instructions: string; input: ResponseInputItem[] } {
  const instructions: string[] = [];
  const input: ResponseInputItem[] = [];
  for (const message of messages) {
    if (message.role === 'system') instructions.push(message.content);
    else if (message.role === 'user') input.push({ role: 'user', content: message.content });
    else if (message.role === 'assistant') {
      if (message.content) input.push({ role: 'assistant', content: message.content });
      for (const call of message.toolCalls) {
        input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: JSON.stringify(call.arguments) });
      }
    } else input.push({ type: 'function_call_output', call_id: message.toolCallId, output: message.content });
  }
  return { instructions: instructions.join('\n\n'), input };
}

export function toResponsesTools(tools: readonly ToolDefinition[]) {
  return tools.map((tool) => ({
    type: 'function' as const,
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  }));
}

/** The subset of a final Response object we read. */
export interface ResponseObject {
  status?: string;
  output?: {
    type: string;
    content?: { type: string; text?: string | null }[] | null;
    call_id?: string | null;
    name?: string | null;
    arguments?: unknown;
  }[];
  usage?: unknown;
  incomplete_details?: { reason?: string } | null;
}

export function fromResponse(response: ResponseObject): ModelTurn {
  let text = '';
  const toolCalls: ModelTurn['toolCalls'] = [];
  for (const item of response.output ?? []) {
    if (item.type === 'message') {
      for (const part of item.content ?? []) if (part.type === 'output_text' && part.text) text += part.text;
    } else if (item.type === 'function_call') {
      toolCalls.push({ id: item.call_id ?? `call_${toolCalls.length}`, name: item.name ?? '', ...parseToolArguments(item.arguments ?? '') });
    }
  }
  const finishReason = response.incomplete_details?.reason ?? (toolCalls.length ? 'tool_calls' : (response.status ?? 'completed'));
  return { text, toolCalls, usage: fromOpenAIResponsesUsage(response.usage), finishReason };
}
