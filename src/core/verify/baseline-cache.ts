/**
 * Base results are cached per (base commit, verification command, runner,
 * environment) so a second tick on an unchanged base runs the suite once.
 * A cached value is trusted only whole: one entry per planned command, in
 * order, each with the fields the verdict reads; anything else runs again.
 * Runs that say something about the environment rather than the base (a
 * timeout, a signal, a command that cannot run) are never stored.
 */
import type { CommandSpec } from '../plan/execution-plan.js';
import type { CommandEvidence } from '../ports/index.js';
import { cannotRunAtBase } from './base-runnable.js';

/** The engine's part of the key; the adapter adds the environment's fingerprint. */
export function baselineCacheKey(commit: string, commands: readonly CommandSpec[], runner: { isolation: string; collectsReports?: boolean }): string {
  return JSON.stringify({ v: 1, commit, commands: commands.map((spec) => [spec.command, spec.timeoutMs]), isolation: runner.isolation, reports: runner.collectsReports === true });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function isEvidence(value: unknown, command: string): value is CommandEvidence {
  if (!isRecord(value) || value['command'] !== command) return false;
  const { exitCode, signal, timedOut, output, durationMs, finishedAt, tests } = value;
  if (!(exitCode === null || Number.isInteger(exitCode)) || !(signal === null || typeof signal === 'string')) return false;
  if (typeof timedOut !== 'boolean' || typeof output !== 'string' || typeof durationMs !== 'number' || typeof finishedAt !== 'number') return false;
  if (tests === undefined) return true;
  if (!isRecord(tests)) return false;
  if (tests['source'] === 'exit-code') return typeof tests['why'] === 'string';
  return tests['source'] === 'report' && Number.isInteger(tests['collected']) && isRecord(tests['tests']) && Object.values(tests['tests']).every((status) => ['passed', 'failed', 'skipped', 'errored'].includes(status as string));
}

/** The cached evidence when it is whole and readable for exactly these commands, else null (then run). */
export function cachedBaseline(value: unknown, commands: readonly CommandSpec[]): CommandEvidence[] | null {
  if (!Array.isArray(value) || value.length !== commands.length) return null;
  return value.every((entry, index) => isEvidence(entry, commands[index]!.command)) ? (value as CommandEvidence[]) : null;
}

/** Whether a baseline may be stored: every command ran to its own end and could run. */
export function cacheableBaseline(evidence: readonly CommandEvidence[], commands: readonly CommandSpec[]): boolean {
  return evidence.length === commands.length && evidence.every((entry) => !entry.timedOut && entry.signal === null && cannotRunAtBase(entry) === null);
}
