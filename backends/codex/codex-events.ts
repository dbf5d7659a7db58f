/**
 * The JSONL events `codex exec --json` prints (codex 0.169: thread.started,
 * turn.started, item.started/updated/completed, turn.completed with usage,
 * turn.failed, error). Unknown event types are ignored, not errors: the CLI
 * adds new ones between releases.
 */
import * as z from 'zod';

export const CodexUsageSchema = z.object({
  input_tokens: z.number().nonnegative().default(0),
  cached_input_tokens: z.number().nonnegative().default(0),
  cache_write_input_tokens: z.number().nonnegative().default(0),
  output_tokens: z.number().nonnegative().default(0),
  reasoning_output_tokens: z.number().nonnegative().default(0),
});
export type CodexUsage = z.infer<typeof CodexUsageSchema>;

const ItemSchema = z.object({ id: z.string().optional(), type: z.string() }).passthrough();

export const CodexEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('thread.started'), thread_id: z.string().optional() }),
  z.object({ type: z.literal('turn.started') }),
  z.object({ type: z.literal('turn.completed'), usage: CodexUsageSchema.optional() }),
  z.object({ type: z.literal('turn.failed'), error: z.object({ message: z.string() }).passthrough().optional() }),
  z.object({ type: z.literal('error'), message: z.string() }),
  z.object({ type: z.literal('item.started'), item: ItemSchema }),
  z.object({ type: z.literal('item.updated'), item: ItemSchema }),
  z.object({ type: z.literal('item.completed'), item: ItemSchema }),
]);
export type CodexEvent = z.infer<typeof CodexEventSchema>;

/** One stdout line → an event, or null for blank lines, non-JSON and event types we do not read. */
export function parseCodexLine(line: string): CodexEvent | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return null;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return null;
  }
  const parsed = CodexEventSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** A one-line transcript entry for an item, or null for items not worth keeping. */
export function describeItem(item: z.infer<typeof ItemSchema>): string | null {
  const field = (name: string) => (typeof item[name] === 'string' ? (item[name] as string) : '');
  switch (item.type) {
    case 'agent_message':
      return `assistant: ${field('text').slice(0, 500)}`;
    case 'command_execution':
      return `command: ${field('command').slice(0, 200)} (${field('status')})`;
    case 'file_change':
      return `file change: ${JSON.stringify(item['changes'] ?? []).slice(0, 300)} (${field('status')})`;
    case 'error':
      return `error: ${field('message').slice(0, 300)}`;
    default:
      return null;
  }
}
