/**
 * `outcomes sync` over a shared store (the fleet's Postgres): a local proposal whose commit this checkout does not
 * have is another checkout's, so it is reported unchecked and left open — never closed for everyone because its
 * branch is not here. The twin: the same store reaching one checkout (the file) closes it, as before, and a commit
 * this checkout has is judged in a shared store too.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FileOutcomeStore, type OutcomeStore } from '../src/adapters/outcomes/outcome-store.js';
import { sampleProposal } from '../src/testing/conformance/index.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { syncOutcomes } from '../src/use-cases/outcomes/sync-outcomes.js';
import { cleanupTempDirs, makeRepo, sh } from './git-fixtures.js';

afterAll(cleanupTempDirs);

/** The outcomes file of `root`, seen as a store every checkout shares (as `PostgresOutcomeStore` is). */
function shared(root: string): OutcomeStore {
  const file = new FileOutcomeStore(root);
  return { reach: 'repository', lines: () => file.lines(), history: () => file.history(), append: (lines, options) => file.append(lines, options), removeRehearsal: (patternId) => file.removeRehearsal(patternId) };
}

const clock = new FixedClock('2026-11-27T12:00:00Z');
const sync = (root: string, outcomes: OutcomeStore) => syncOutcomes(root, { clock, env: {}, outcomes, patterns: ['daily-triage'] });

describe('outcomes sync and a local proposal of another checkout', () => {
  it('shared store: a commit not in this checkout is unchecked and stays open', async () => {
    const root = await makeRepo();
    const foreign = sampleProposal('tick-a', 'issue#7');
    await shared(root).append([foreign], { oncePer: 'tick' });
    const report = await sync(root, shared(root));
    expect(report.checked).toBe(0);
    expect(report.unchecked).toEqual([{ pattern: 'daily-triage', commit: foreign.commit, reason: expect.stringContaining('not in this checkout') }]);
    expect((await shared(root).history()).changes.map((change) => change.state)).toEqual(['open']);
  });

  it('checkout store (the file): the same proposal with its branch gone is closed', async () => {
    const root = await makeRepo();
    await new FileOutcomeStore(root).append([sampleProposal('tick-a', 'issue#7')], { oncePer: 'tick' });
    const report = await sync(root, new FileOutcomeStore(root));
    expect(report.checked).toBe(1);
    expect(report.changed.map((change) => change.to)).toEqual(['closed']);
  });

  it('shared store: a commit this checkout has (merged into the base) is judged', async () => {
    const root = await makeRepo();
    const commit = sh(root, ['rev-parse', 'HEAD']).trim();
    const branch = sh(root, ['branch', '--show-current']).trim();
    await shared(root).append([{ ...sampleProposal('tick-b', 'issue#8'), commit, base: branch }], { oncePer: 'tick' });
    const report = await sync(root, shared(root));
    expect(report.unchecked).toEqual([]);
    expect(report.changed.map((change) => change.to)).toEqual(['merged']);
  });
});
