/** `loop-runtime inbox [id] [--diff]`: what waits for a human decision; with an id or --diff, the change itself. */
import pc from 'picocolors';
import { ExitCode, LoopRuntimeError } from '../../core/errors.js';
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

/** A patch as a reviewer reads it: added lines green, removed red (colour only on a TTY, as picocolors decides). */
function paintPatch(patch: string): string {
  return patch
    .split('\n')
    .map((line) => (line.startsWith('+++') || line.startsWith('---') ? pc.bold(line) : line.startsWith('+') ? pc.green(line) : line.startsWith('-') ? pc.red(line) : line.startsWith('@@') ? pc.cyan(line) : line))
    .join('\n');
}

/** Handler for `loop-runtime inbox`. */
export async function inboxCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const all = await opened.runtime.inbox();
  const wanted = args[0];
  const items = wanted ? all.filter((item) => item.id === wanted || item.itemKey === wanted) : all;
  if (wanted && items.length === 0) {
    throw new LoopRuntimeError('USAGE', `Nothing in the inbox is "${wanted}".`, { fix: `run \`loop-runtime inbox\` for the ids that wait${all.length ? ` (${all.map((item) => item.id).join(', ')})` : ''}.` });
  }
  if (items.length === 0) return { exitCode: ExitCode.ok, json: { items }, text: 'Nothing waits for a human decision.' };
  if (wanted || options['diff']) {
    // The change itself, as the console's inbox shows it: the paths, the gate's decision on them, the patch.
    const shown = [];
    for (const item of items) {
      const diff = item.kind === 'escalated' && !item.keptBy ? await opened.runtime.diff(item.id) : null;
      shown.push({ item, diff });
    }
    const text = shown
      .map(({ item, diff }) =>
        [
          `${pc.bold(item.id)}  ${item.pattern}  ${item.branch}  ${formatAge(item.ageMs)} ago`,
          `    ${item.kind === 'delivery-failed' ? 'delivery failed' : 'why'}: ${item.reason ?? 'unknown'}`,
          ...(diff
            ? [`    gate: ${diff.gate.allowed ? 'allows a commit' : `escalates (${diff.gate.reason})`}`, `    paths: ${diff.paths.join(', ') || '(none)'}`, '', paintPatch(diff.patch.trimEnd()), '']
            : [item.kind === 'delivery-failed' && item.commit ? `    the verified commit: git show ${item.commit}` : `    kept by fleet worker ${item.keptBy ?? '?'}: its diff is in the console of that worker's repository`]),
        ].join('\n'),
      )
      .join('\n');
    return { exitCode: ExitCode.ok, json: { items: shown.map(({ item, diff }) => ({ ...item, ...(diff ? { diff } : {}) })) }, text };
  }
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
