/**
 * The OutcomeStore contract as a test suite, run by the outcomes file and the
 * fleet store's rows alike: what one handle appends every other handle (another
 * process's) reads back, in append order and folded the same; `oncePer: 'tick'`
 * records a tick's proposal once however many processes append it at the same
 * moment; an unreadable store is `STATE_FAILED`, never an empty history.
 *
 * @example
 * ```ts
 * describeOutcomeStoreConformance('FileOutcomeStore', {
 *   async create() {
 *     const root = await mkdtemp(join(tmpdir(), 'outcomes-'));
 *     return { open: () => new FileOutcomeStore(root) };
 *   },
 * });
 * ```
 */
import { describe, expect, it } from 'vitest';
import { isLoopRuntimeError } from '../../core/errors.js';
import type { LevelChangeLine, ObservationLine, OutcomeLine, ProposalLine } from '../../core/outcomes/index.js';
import type { OutcomeStore } from '../../adapters/outcomes/outcome-store.js';

export interface OutcomeStoreSubject {
  /** A new handle on the same stored lines, as another checkout or worker would open. */
  open(): OutcomeStore;
  /**
   * Optional: real OS processes, started together, each appending `batches` in order (each `oncePer: 'tick'`).
   * Resolves with how many lines each process added.
   */
  appendInOtherProcesses?(batches: readonly (readonly OutcomeLine[])[], processes: number): Promise<number[]>;
  /** Optional: makes the stored lines unreadable (a line that is not an outcome line). */
  corrupt?(): Promise<void>;
  dispose?(): Promise<void>;
}

export interface OutcomeStoreConformanceOptions {
  create(): Promise<OutcomeStoreSubject>;
}

/** A tick's proposal of `itemKey`; the commit is derived from the tick id, so two ticks never share one. */
export function sampleProposal(tickId: string | null, itemKey = 'issue#1', at = '2026-11-27T10:00:00Z'): ProposalLine {
  const seed = [...(tickId ?? itemKey)].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) >>> 0, 7);
  return {
    type: 'proposal',
    at,
    pattern: 'daily-triage',
    tickId,
    itemKey,
    commit: seed.toString(16).padStart(8, '0').repeat(5),
    branch: `loop/daily-triage/${itemKey.replace(/\W/g, '-')}`,
    base: 'main',
    delivery: 'local',
    level: 'L2',
    tokens: 1200,
    source: 'tick',
    backend: 'claude-code',
  };
}

const observation = (commit: string, state: ObservationLine['state']): ObservationLine => ({ type: 'observation', at: '2026-11-27T11:00:00Z', pattern: 'daily-triage', commit, state, via: 'git' });
const levelChange: LevelChangeLine = { type: 'level-change', at: '2026-11-27T12:00:00Z', pattern: 'daily-triage', from: 'L2', to: 'L1', reason: 'two reverts in the window', by: 'autonomy' };

export function describeOutcomeStoreConformance(name: string, options: OutcomeStoreConformanceOptions): void {
  describe(`OutcomeStore conformance: ${name}`, () => {
    async function withSubject(body: (subject: OutcomeStoreSubject) => Promise<void>): Promise<void> {
      const subject = await options.create();
      try {
        await body(subject);
      } finally {
        await subject.dispose?.();
      }
    }

    it('starts empty: no lines, no changes, no level changes', async () => {
      await withSubject(async (subject) => {
        expect(await subject.open().lines()).toEqual([]);
        expect(await subject.open().history()).toEqual({ changes: [], levelChanges: [] });
      });
    });

    it('reads back from another handle what one appended, and folds it (the newest observation wins)', async () => {
      await withSubject(async (subject) => {
        const proposal = sampleProposal('tick-1');
        const written: OutcomeLine[] = [proposal, observation(proposal.commit, 'open'), observation(proposal.commit, 'merged'), levelChange];
        expect(await subject.open().append(written.slice(0, 2))).toBe(2);
        expect(await subject.open().append(written.slice(2))).toBe(2);
        const reader = subject.open();
        expect(await reader.lines()).toEqual(written);
        const history = await reader.history();
        expect(history.changes).toEqual([{ proposal, observation: written[2], state: 'merged' }]);
        expect(history.levelChanges).toEqual([levelChange]);
        expect(await subject.open().append([])).toBe(0);
      });
    });

    it('keeps append order, a batch kept together, when handles append at the same moment', async () => {
      await withSubject(async (subject) => {
        const batches = Array.from({ length: 8 }, (_, index) => [sampleProposal(`tick-${index}`, `issue#${index}`), observation(sampleProposal(`tick-${index}`).commit, 'open')]);
        const added = await Promise.all(batches.map((batch) => subject.open().append(batch)));
        expect(added).toEqual(batches.map(() => 2));
        const lines = await subject.open().lines();
        expect(lines).toHaveLength(16);
        for (let index = 0; index < lines.length; index += 2) {
          const proposal = lines[index]!;
          expect(proposal.type).toBe('proposal');
          expect(lines[index + 1]).toEqual(observation((proposal as ProposalLine).commit, 'open'));
        }
        const later = sampleProposal('tick-later', 'issue#later');
        await subject.open().append([later]);
        expect((await subject.open().lines()).at(-1)).toEqual(later);
      });
    });

    it("oncePer 'tick' records a tick's proposal once; without it (a retried delivery) the line is appended again", async () => {
      await withSubject(async (subject) => {
        const proposal = sampleProposal('tick-7');
        expect(await subject.open().append([proposal], { oncePer: 'tick' })).toBe(1);
        expect(await subject.open().append([proposal, sampleProposal('tick-8', 'issue#8')], { oncePer: 'tick' })).toBe(1);
        expect((await subject.open().lines()).map((line) => (line as ProposalLine).tickId)).toEqual(['tick-7', 'tick-8']);
        expect(await subject.open().append([proposal])).toBe(1);
        expect(await subject.open().lines()).toHaveLength(3);
        // A human's approval has no tick: never deduplicated.
        expect(await subject.open().append([sampleProposal(null, 'issue#9')], { oncePer: 'tick' })).toBe(1);
        expect(await subject.open().append([sampleProposal(null, 'issue#9')], { oncePer: 'tick' })).toBe(1);
      });
    });

    it("oncePer 'tick' records a tick once when many handles append it at the same moment", async () => {
      await withSubject(async (subject) => {
        const proposal = sampleProposal('tick-race');
        const added = await Promise.all(Array.from({ length: 8 }, () => subject.open().append([proposal], { oncePer: 'tick' })));
        expect(added.reduce((sum, count) => sum + count, 0)).toBe(1);
        expect(await subject.open().lines()).toEqual([proposal]);
      });
    });

    it("oncePer 'tick' records each tick once when real processes append the same ticks at once, in order", async () => {
      await withSubject(async (subject) => {
        if (!subject.appendInOtherProcesses) return;
        const ticks = Array.from({ length: 12 }, (_, index) => sampleProposal(`tick-p${index}`, `issue#${index}`));
        const added = await subject.appendInOtherProcesses(
          ticks.map((tick) => [tick]),
          3,
        );
        expect(added).toHaveLength(3);
        expect(added.reduce((sum, count) => sum + count, 0)).toBe(ticks.length);
        // Each process appends the ticks in order and none is skipped before an earlier one is in: the order is kept.
        expect(await subject.open().lines()).toEqual(ticks);
      });
    });

    it("removeRehearsal removes one loop's mock proposals and their observations; real lines, level changes and other loops' rehearsals stay", async () => {
      await withSubject(async (subject) => {
        const mock = { ...sampleProposal('tick-mock', 'issue#2'), backend: 'mock' };
        const real = sampleProposal('tick-real', 'issue#3');
        const otherLoop = { ...sampleProposal('tick-other', 'issue#4'), pattern: 'ci-sweeper', backend: 'mock' };
        const written: OutcomeLine[] = [real, mock, observation(mock.commit, 'open'), observation(real.commit, 'merged'), levelChange, otherLoop];
        await subject.open().append(written);
        expect(await subject.open().removeRehearsal('daily-triage')).toBe(2);
        expect(await subject.open().lines()).toEqual([real, observation(real.commit, 'merged'), levelChange, otherLoop]);
        // The twin: nothing of the rehearsal is left, so a second reset removes nothing and the real lines still stand.
        expect(await subject.open().removeRehearsal('daily-triage')).toBe(0);
        expect((await subject.open().history()).changes.map((change) => change.proposal.tickId)).toEqual(['tick-real', 'tick-other']);
        expect(await subject.open().removeRehearsal('ci-sweeper')).toBe(1);
        expect(await subject.open().lines()).toEqual([real, observation(real.commit, 'merged'), levelChange]);
      });
    });

    it('removeRehearsal on an empty store removes nothing and creates nothing', async () => {
      await withSubject(async (subject) => {
        expect(await subject.open().removeRehearsal('daily-triage')).toBe(0);
        expect(await subject.open().lines()).toEqual([]);
      });
    });

    it('an unreadable store is STATE_FAILED naming where (never an empty history)', async () => {
      await withSubject(async (subject) => {
        if (!subject.corrupt) return;
        await subject.open().append([sampleProposal('tick-1')]);
        expect((await subject.open().history()).changes).toHaveLength(1);
        await subject.corrupt();
        for (const attempt of [() => subject.open().history(), () => subject.open().lines()]) {
          const caught: unknown = await attempt().then(
            () => null,
            (error: unknown) => error,
          );
          expect(isLoopRuntimeError(caught) ? caught.code : caught).toBe('STATE_FAILED');
          expect(isLoopRuntimeError(caught) ? caught.message : '').toMatch(/outcomes/);
        }
      });
    });
  });
}
