/**
 * `.loop-runtime/outcomes.jsonl`: what became of every change a loop
 * delivered, one JSON object a line, appended only. Three kinds of line:
 *
 * - `proposal` — written when a tick (or a human's `approve`) delivered a
 *   commit: which loop, tick, commit, branch, base, delivery and the
 *   tick's tokens;
 * - `observation` — what a later check saw for that commit: open, merged,
 *   closed unmerged or reverted, with the time to merge and the checks;
 *   the newest observation of a commit wins;
 * - `level-change` — a demotion, pause or promotion with its reason.
 *
 * Pure: parsing and folding only. Fail closed: a line that is not one of
 * these is an error naming the file and line, never skipped (a skipped
 * revert would read as a merged change); only a torn last append (the start
 * of a JSON object cut off by a crash) is ignored.
 */
import * as z from 'zod';
import { LevelSchema, type Level } from '../config/schemas.js';
import { LoopRuntimeError } from '../errors.js';

const iso = z.iso.datetime({ offset: true });

export const ProposalLineSchema = z.looseObject({
  type: z.literal('proposal'),
  at: iso,
  pattern: z.string().min(1),
  tickId: z.string().nullable(),
  itemKey: z.string(),
  commit: z.string().regex(/^[0-9a-f]{7,64}$/, 'must be a git commit id'),
  branch: z.string().min(1),
  /** The branch the change was meant for (null: the repository's HEAD branch at the time). */
  base: z.string().nullable(),
  delivery: z.enum(['local', 'pushed', 'pull-request', 'merged', 'duplicate']),
  url: z.string().optional(),
  level: LevelSchema,
  /** Tokens the delivering tick spent (0 for a human's approve). */
  tokens: z.number().min(0),
  source: z.enum(['tick', 'human-approved']),
  /** The backend of the delivering tick; `mock` marks a rehearsal (see `withoutRehearsals`). Absent on older lines. */
  backend: z.string().optional(),
});
export type ProposalLine = z.infer<typeof ProposalLineSchema>;

import { REHEARSAL_BACKEND } from './rehearsal-backend.js';

export { REHEARSAL_BACKEND };

/**
 * The history as results count it: a rehearsal's changes (`--backend mock` outside a dry run) are left out, so they
 * feed no metric and no autonomy decision. The one-open-proposal rule reads the whole history instead.
 *
 * @example
 * ```ts
 * const history = withoutRehearsals(await store.history());
 * ```
 */
export function withoutRehearsals(history: OutcomeHistory): OutcomeHistory {
  return { ...history, changes: history.changes.filter((change) => change.proposal.backend !== REHEARSAL_BACKEND) };
}

/** `discarded`: a human dropped the change with `loop-runtime discard` (a local proposal never merged). */
export const CHANGE_STATES = ['open', 'merged', 'closed', 'reverted', 'discarded'] as const;
export type ChangeState = (typeof CHANGE_STATES)[number];
export const CHECK_STATES = ['passing', 'failing', 'pending', 'none'] as const;
export type ChecksState = (typeof CHECK_STATES)[number];

export const ObservationLineSchema = z.looseObject({
  type: z.literal('observation'),
  at: iso,
  pattern: z.string().min(1),
  commit: z.string().min(7),
  state: z.enum(CHANGE_STATES),
  /** Where the answer came from: the gh CLI, the REST API, git ancestry, or a human (`discard`). */
  via: z.enum(['gh', 'rest', 'git', 'human']),
  openedAt: iso.nullable().optional(),
  mergedAt: iso.nullable().optional(),
  checks: z.enum(CHECK_STATES).optional(),
  /** The commit on the base that landed the change (a squash or merge commit), when known. */
  landedAs: z.string().optional(),
  /** The commit that reverted it. */
  revertedBy: z.string().optional(),
});
export type ObservationLine = z.infer<typeof ObservationLineSchema>;

export const LevelChangeLineSchema = z.looseObject({
  type: z.literal('level-change'),
  at: iso,
  pattern: z.string().min(1),
  from: LevelSchema,
  to: LevelSchema,
  reason: z.string().min(1),
  by: z.enum(['autonomy', 'human']),
  /** Where the new level was written (e.g. `loops/ci-sweeper/LOOP.md`). */
  file: z.string().optional(),
});
export type LevelChangeLine = z.infer<typeof LevelChangeLineSchema>;

export const OutcomeLineSchema = z.discriminatedUnion('type', [ProposalLineSchema, ObservationLineSchema, LevelChangeLineSchema]);
export type OutcomeLine = z.infer<typeof OutcomeLineSchema>;

/** A delivered change with the newest thing known about it. */
export interface TrackedChange {
  proposal: ProposalLine;
  /** Newest observation; null while nothing was checked yet (counts as open). */
  observation: ObservationLine | null;
  state: ChangeState;
}

export interface OutcomeHistory {
  changes: TrackedChange[];
  levelChanges: LevelChangeLine[];
}

/**
 * Parses outcomes.jsonl. Throws `STATE_FAILED` naming `file:line` for any
 * line that is not an outcome line, except a torn last line.
 *
 * @example
 * ```ts
 * parseOutcomeLines('', '.loop-runtime/outcomes.jsonl'); // → []
 * ```
 */
export function parseOutcomeLines(text: string | null, file: string): OutcomeLine[] {
  if (text === null) return [];
  const lines = text.split('\n');
  const parsed: OutcomeLine[] = [];
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const isLast = lines.slice(index + 1).every((rest) => rest.trim() === '');
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (isLast && line.startsWith('{"') && !line.endsWith('}')) return;
      throw corrupt(file, index + 1, 'it is not JSON');
    }
    const result = OutcomeLineSchema.safeParse(value);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw corrupt(file, index + 1, `${issue.path.join('.') || 'the line'}: ${issue.message}`);
    }
    parsed.push(result.data);
  });
  return parsed;
}

function corrupt(file: string, line: number, why: string): LoopRuntimeError {
  return new LoopRuntimeError(
    'STATE_FAILED',
    `${file}:${line} is not an outcome record: ${why}. loop-runtime does not guess what became of a change (a lost revert would count as a merge).`,
    { fix: `repair or delete line ${line} of ${file}; \`loop-runtime outcomes sync\` re-checks every change still listed there.` },
  );
}

/** One line of outcomes.jsonl (no newline). */
export function formatOutcomeLine(line: OutcomeLine): string {
  return JSON.stringify(line);
}

/**
 * Folds the lines into one record per proposed commit (the newest
 * observation wins; a second proposal of the same commit is ignored) and the
 * level changes in order.
 */
export function foldOutcomes(lines: readonly OutcomeLine[]): OutcomeHistory {
  const byCommit = new Map<string, TrackedChange>();
  const levelChanges: LevelChangeLine[] = [];
  for (const line of lines) {
    if (line.type === 'proposal') {
      if (!byCommit.has(line.commit)) byCommit.set(line.commit, { proposal: line, observation: null, state: 'open' });
    } else if (line.type === 'observation') {
      const change = byCommit.get(line.commit);
      if (change) {
        change.observation = line;
        change.state = line.state;
      }
    } else {
      levelChanges.push(line);
    }
  }
  return { changes: [...byCommit.values()], levelChanges };
}

/** True when nothing can change any more (closed unmerged, discarded or reverted); merged changes are still watched for reverts. */
export function isSettled(state: ChangeState): boolean {
  return state === 'closed' || state === 'reverted' || state === 'discarded';
}

/** The newest level change of a loop, if any. */
export function lastLevelChange(history: OutcomeHistory, pattern: string): LevelChangeLine | null {
  const changes = history.levelChanges.filter((change) => change.pattern === pattern);
  return changes[changes.length - 1] ?? null;
}

export type { Level };
