/** `loop-runtime inbox`: the escalated changes waiting for a human decision. */
import pc from 'picocolors';
import { ExitCode } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { openCliRuntime } from '../open.js';

/** A short age: 45s, 12m, 3h, 2d. */
export function formatAge(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** Handler for `loop-runtime inbox`. */
export async function inboxCommand({ io }: CommandContext): Promise<CommandOutput> {
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const items = await opened.runtime.inbox();
  if (items.length === 0) return { exitCode: ExitCode.ok, json: { items }, text: 'Nothing waits for a human decision.' };
  const lines = items.map((item) =>
    [
      `${pc.bold(item.id)}  ${item.pattern}  ${item.branch}  ${formatAge(item.ageMs)} ago`,
      `    ${item.itemKey ?? ''}${item.title ? ` — ${item.title}` : ''}`,
      `    why: ${item.reason ?? 'unknown'}`,
      `    review: ${item.path}`,
    ].join('\n'),
  );
  return {
    exitCode: ExitCode.ok,
    json: { items },
    text: [`${items.length} change(s) wait for a human decision:`, ...lines, '', 'Run `loop-runtime approve <id>` or `loop-runtime reject <id>`.'].join('\n'),
  };
}
