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
      `${pc.bold(item.id)}  ${item.pattern}  ${item.branch}  ${formatAge(item.ageMs)} ago${item.kind === 'delivery-failed' ? `  ${pc.yellow('delivery failed')}` : ''}`,
      `    ${item.itemKey ?? ''}${item.title ? ` — ${item.title}` : ''}`,
      `    ${item.kind === 'delivery-failed' ? '' : 'why: '}${item.reason ?? 'unknown'}`,
      item.kind === 'delivery-failed'
        ? `    retry: loop-runtime deliver ${item.id}${item.commit ? `  (commit ${item.commit.slice(0, 12)})` : ''}`
        : item.keptBy
          ? `    kept by fleet worker ${item.keptBy}; the decision reaches it from here`
          : `    review: ${item.path}`,
    ].join('\n'),
  );
  const escalated = items.filter((item) => item.kind === 'escalated').length;
  const stranded = items.length - escalated;
  const hints = [
    ...(escalated > 0 ? ['Run `loop-runtime approve <id>` or `loop-runtime reject <id>`.'] : []),
    ...(stranded > 0 ? ['Run `loop-runtime deliver <id>` to retry a failed delivery (the loop\'s next tick also retries it), or `loop-runtime reject <id>` to drop it.'] : []),
  ];
  const heading = [escalated > 0 ? `${escalated} change(s) wait for a human decision` : '', stranded > 0 ? `${stranded} verified change(s) wait for delivery` : ''].filter(Boolean).join('; ');
  return {
    exitCode: ExitCode.ok,
    json: { items },
    text: [`${heading}:`, ...lines, '', ...hints].join('\n'),
  };
}
