/**
 * Pure decisions the tool loop makes between model calls: budget reservation,
 * stall detection and context compaction.
 */
import type { LoopMessage, ToolCall } from './model.js';

// ------------------------------------------------------------------ budget

export type CallPlan = { ok: true; maxOutputTokens: number } | { ok: false; message: string };

/**
 * Reserves the next call: its estimated input plus its output ceiling must fit
 * in what is left of the role's token reservation. The output ceiling shrinks
 * to fit, but never below `minOutputTokens` — below that the call is refused.
 *
 * @example
 * ```ts
 * planNextCall({ maxTokens: 10_000, spent: 9_000, estimatedInput: 800, maxOutputTokens: 4096, minOutputTokens: 256 });
 * // { ok: false, … } — 800 + 256 > 1000 left
 * ```
 */
export function planNextCall(input: {
  maxTokens: number;
  spent: number;
  estimatedInput: number;
  maxOutputTokens: number;
  minOutputTokens: number;
}): CallPlan {
  const remaining = input.maxTokens - input.spent;
  const available = remaining - input.estimatedInput;
  const floor = Math.min(input.minOutputTokens, input.maxOutputTokens);
  if (available < floor) {
    return {
      ok: false,
      message:
        `The next model call would not fit in the token reservation: ${input.spent} of ${input.maxTokens} tokens spent, ` +
        `~${input.estimatedInput} input tokens plus at least ${floor} output tokens needed, ${Math.max(0, remaining)} left.`,
    };
  }
  return { ok: true, maxOutputTokens: Math.min(input.maxOutputTokens, available) };
}

// ------------------------------------------------------------------- stall

/** JSON with sorted keys, so `{a,b}` and `{b,a}` are the same call. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableStringify(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export interface StallVerdict {
  tool: string;
  reason: string;
}

/**
 * Counts repeated identical tool calls and repeated failing commands. At the
 * limit (3 by default) it names the tool to remove and why.
 */
export class StallDetector {
  private readonly calls = new Map<string, number>();
  private readonly failingCommands = new Map<string, number>();
  constructor(private readonly limit = 3) {}

  record(call: ToolCall, outcome: { ok: boolean; executed?: string }): StallVerdict | null {
    if (call.name === 'done') return null;
    const key = `${call.name}:${stableStringify(call.arguments)}`;
    const seen = (this.calls.get(key) ?? 0) + 1;
    this.calls.set(key, seen);
    if (outcome.executed !== undefined && !outcome.ok) {
      const failures = (this.failingCommands.get(outcome.executed) ?? 0) + 1;
      this.failingCommands.set(outcome.executed, failures);
      if (failures >= this.limit) {
        return {
          tool: call.name,
          reason: `the command \`${outcome.executed}\` failed ${failures} times in a row of attempts; running it again will not help. Change the code or explain the failure instead.`,
        };
      }
    }
    if (seen >= this.limit) {
      return {
        tool: call.name,
        reason: `you called ${call.name} with the same arguments ${seen} times and got the same result. Use what you already have.`,
      };
    }
    return null;
  }
}

// -------------------------------------------------------------- compaction

/** Whether the conversation is close enough to the window to compact. */
export function needsCompaction(estimatedTokens: number, contextWindow: number, maxOutputTokens: number, threshold = 0.8): boolean {
  return estimatedTokens + maxOutputTokens > contextWindow * threshold;
}

/**
 * Drops the middle of the conversation, keeping the system prompt, the task
 * (first user message), a note of modified files and recent failures, and the
 * most recent `keepRecent` messages (cut at an assistant message, so no tool
 * result loses its call).
 */
export function compactMessages(
  messages: readonly LoopMessage[],
  memory: { modifiedFiles: readonly string[]; failures: readonly string[] },
  keepRecent = 6,
): LoopMessage[] {
  const head = messages.slice(0, 2);
  let start = Math.max(2, messages.length - keepRecent);
  while (start < messages.length && messages[start]!.role !== 'assistant') start++;
  if (start <= 2) return [...messages];
  const removed = start - 2;
  const note = [
    `[Context compacted: ${removed} earlier messages were removed to fit the context window.]`,
    `Files you modified so far: ${memory.modifiedFiles.length ? memory.modifiedFiles.join(', ') : 'none'}.`,
    memory.failures.length ? `Most recent failures:\n${memory.failures.map((failure) => `- ${failure}`).join('\n')}` : 'No failures so far.',
    'Re-read any file you need; earlier tool output is gone.',
  ].join('\n');
  return [...head, { role: 'user', content: note }, ...messages.slice(start)];
}
