/**
 * `loop-runtime run <id>`: tick one loop now (N times with --ticks).
 * --dry-run runs the whole engine with the mock backend against in-memory
 * state and an in-memory overlay of the repository: nothing on disk changes.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { EventItem } from '../../adapters/discovery/event-discovery.js';
import { exitCodeForSignal, LoopRuntimeError } from '../../core/errors.js';
import { isInterrupted, runLogOutcome, type TickResult } from '../../core/engine/tick-result.js';
import { formatDiagnostic } from '../../core/config/diagnostics.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { configErrorOutput, openCliRuntime } from '../open.js';
import { parseLevel } from '../parse-level.js';
import { renderDue } from '../render/render-due.js';
import { renderRun } from '../render/render-run.js';

function parseTicks(value: unknown): number {
  const ticks = value === undefined ? 1 : Number(value);
  if (!Number.isInteger(ticks) || ticks < 1 || ticks > 10_000) {
    throw new LoopRuntimeError('USAGE', `--ticks ${String(value)} is not a number of ticks.`, { fix: 'pass a whole number from 1 to 10000.' });
  }
  return ticks;
}

export async function runCommand({ args, options, io }: CommandContext): Promise<CommandOutput> {
  const id = args[0];
  const level = parseLevel(options.level);
  if (options.eventItem !== undefined && options.due) throw new LoopRuntimeError('USAGE', '--event-item ticks one loop now; it does not go with --due.', { fix: 'run `loop-runtime run <id> --event-item <file>`.' });
  const eventItem = typeof options.eventItem === 'string' ? await readEventItem(resolve(io.cwd, options.eventItem)) : undefined;
  const request = {
    ...(eventItem ? { eventItem } : {}),
    dryRun: Boolean(options.dryRun),
    allowUnsandboxed: Boolean(options.allowUnsandboxed),
    ...(level ? { level } : {}),
    ...(typeof options.backend === 'string' ? { backendName: options.backend } : {}),
    ...(typeof options.record === 'string' ? { record: resolve(io.cwd, options.record) } : {}),
  };
  if (!options.due && !id) throw new LoopRuntimeError('USAGE', 'run needs a loop id.', { fix: 'run `loop-runtime list` to see the loops, then `loop-runtime run <id>`, or `loop-runtime run --due`.' });
  const ticks = options.due ? 1 : parseTicks(options.ticks);
  // SIGINT (Ctrl-C), SIGTERM or SIGHUP stops the running call (its spend settled), keeps a half-done change in the
  // inbox, records the tick, releases the lease and exits 128 + n. Listened for before anything is opened.
  const signal = io.stopSignal();
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  if (options.due) {
    const due = await opened.runtime.runDue({ ...request, ...(id ? { id } : {}), signal });
    if (!due.ok) return configErrorOutput(due.issues);
    const warnings = due.warnings.length > 0 ? due.warnings.map(formatDiagnostic).join('\n') : undefined;
    if (signal.aborted) {
      const ticks = due.value.decisions.flatMap((report) => (report.tick ? [report.tick] : []));
      const stderr = [warnings, interruptedNote(ticks, signal.reason)].filter(Boolean).join('\n');
      const exitCode = exitCodeForSignal(signal.reason);
      return { exitCode, json: { ...due.value, exitCode, interrupted: true, signal: String(signal.reason) }, text: renderDue(due.value), stderr };
    }
    return { exitCode: due.value.exitCode, json: due.value, text: renderDue(due.value), ...(warnings ? { stderr: warnings } : {}) };
  }
  // Under the loop's lease: a second concurrent tick throws LEASE_HELD (exit 4) before any side effect.
  const result = await opened.runtime.run(id!, { ...request, ticks, signal });
  if (!result.ok) return configErrorOutput(result.issues);
  if (signal.aborted) {
    const left = interruptedNote(result.value.ticks, signal.reason);
    const exitCode = exitCodeForSignal(signal.reason);
    return { exitCode, json: { ...result.value, exitCode, interrupted: true, signal: String(signal.reason) }, text: renderRun(result.value), stderr: left };
  }
  return { exitCode: result.value.exitCode, json: result.value, text: renderRun(result.value) };
}

/** What a stopped tick left behind, for the operator. */
export function interruptedNote(ticks: readonly TickResult[], signal: unknown = 'SIGINT'): string {
  const kept = ticks.flatMap((tick) => (tick.kind === 'paused' && tick.kept ? [tick.kept] : []));
  const name = signal === 'SIGINT' ? 'Ctrl-C' : typeof signal === 'string' ? signal : 'stopped';
  const last = ticks[ticks.length - 1];
  // A tick past verification (or done) is not stopped: it commits and delivers, and says so rather than "interrupted".
  const finished = last !== undefined && !isInterrupted(last);
  const lines = [
    finished
      ? `Interrupted (${name}) when the tick had nothing left to stop (a verified change is committed and delivered): it finished (${runLogOutcome(last)}); what it spent is recorded and the loop's lease is released.`
      : `Interrupted (${name}): the tick stopped; what it spent is recorded, the tick is in the run log, and the loop's lease is released.`,
  ];
  for (const worktree of kept) {
    lines.push(`Left: worktree ${worktree.path} on branch ${worktree.branch} (unverified). To fix: \`loop-runtime inbox\`, then \`approve\` or \`reject\` it.`);
  }
  if (kept.length === 0) lines.push('Left: no worktree.');
  return lines.join('\n');
}

/** `--event-item <file>`: the JSON `ci event` wrote ({ item: { key, title, untrustedDetail? }, note }). */
async function readEventItem(path: string): Promise<EventItem> {
  const fix = 'pass the file `loop-runtime ci event` wrote (the Action does), or leave --event-item out for a scheduled tick.';
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new LoopRuntimeError('USAGE', `--event-item ${path} could not be read as JSON: ${error instanceof Error ? error.message : String(error)}.`, { fix });
  }
  const value = parsed as { item?: { key?: unknown; title?: unknown; untrustedDetail?: unknown }; note?: unknown } | null;
  const item = value?.item;
  if (!item || typeof item.key !== 'string' || item.key === '' || typeof item.title !== 'string' || (item.untrustedDetail !== undefined && typeof item.untrustedDetail !== 'string')) {
    throw new LoopRuntimeError('USAGE', `--event-item ${path}: key "item" must be { key, title, untrustedDetail? } strings.`, { fix });
  }
  const formerKeys = (item as { formerKeys?: unknown }).formerKeys;
  const former = Array.isArray(formerKeys) && formerKeys.every((key) => typeof key === 'string') ? { formerKeys: formerKeys as string[] } : {};
  const workItem = { key: item.key, title: item.title, ...(typeof item.untrustedDetail === 'string' ? { untrustedDetail: item.untrustedDetail } : {}), ...former };
  return { item: workItem, note: typeof value.note === 'string' ? value.note : `github-event: ${item.key}` };
}
