/**
 * Outcome tracking, metrics and autonomy against a real git repository and
 * the fake GitHub REST API on loopback: a merged PR, a closed PR, a reverted
 * local commit and an open PR give the right acceptance and cost per merged
 * change; the revert demotes the loop in its LOOP.md (once), the run log says
 * why, and the next tick runs at the lower level.
 */
import { writeFileSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../src/composition/runtime.js';
import { FixedClock } from '../src/testing/index.js';
import { renderLoopMetrics } from '../src/cli/commands/metrics.js';
import { OUTCOMES_FILE } from '../src/adapters/outcomes/outcome-store.js';
import { cleanupTempDirs, makeRepo, sh, writeFiles } from './git-fixtures.js';
import { startFakeGitHub, type FakeGitHub } from './fakes/fake-github-server.js';

const LOOP_MD = `---
# the team's settings; comments must survive a level change
loop-runtime:
  loops:
    ci-sweeper:
      level: L2 # set by hand in week one
      autonomy:
        window: 2
        minAcceptance: 0.5
---
# Loops

We run ci-sweeper. Prose below the front matter is never touched.
`;

let github: FakeGitHub;
let root: string;
const commits: Record<string, string> = {};
const clock = new FixedClock('2026-11-20T12:00:00Z');

function commitOnBranch(branch: string, file: string, tick: string): string {
  sh(root, ['checkout', '--quiet', '-b', branch, 'main']);
  writeFileSync(join(root, `${file}.txt`), `${file}\n`);
  sh(root, ['add', `${file}.txt`]);
  sh(root, ['commit', '--quiet', '-m', `fix ${file}\n\nLoop-Pattern: ci-sweeper\nLoop-Tick: ${tick}`]);
  const sha = sh(root, ['rev-parse', 'HEAD']).trim();
  sh(root, ['checkout', '--quiet', 'main']);
  return sha;
}

const proposal = (name: string, tick: string, delivery: string, url?: string) => ({
  type: 'proposal', at: '2026-11-18T10:00:00.000Z', pattern: 'ci-sweeper', tickId: tick, itemKey: name, commit: commits[name], branch: `loop/ci-sweeper/${name}`,
  base: 'main', delivery, ...(url ? { url } : {}), level: 'L2', tokens: 1000, source: 'tick',
});

beforeAll(async () => {
  github = await startFakeGitHub('acme/demo');
  root = await makeRepo({ 'LOOP.md': LOOP_MD, 'README.md': '# demo\n' });
  commits.merged = commitOnBranch('loop/ci-sweeper/merged', 'a', 'tick-merged');
  commits.closed = commitOnBranch('loop/ci-sweeper/closed', 'b', 'tick-closed');
  commits.reverted = commitOnBranch('loop/ci-sweeper/reverted', 'c', 'tick-reverted');
  commits.open = commitOnBranch('loop/ci-sweeper/open', 'd', 'tick-open');
  // The merged PR lands as a squash commit; the reverted change is merged locally, then reverted.
  sh(root, ['merge', '--quiet', '--squash', 'loop/ci-sweeper/merged']);
  sh(root, ['commit', '--quiet', '-m', 'fix a (#1)']);
  const squash = sh(root, ['rev-parse', 'HEAD']).trim();
  sh(root, ['merge', '--quiet', '--no-ff', '-m', 'merge c', 'loop/ci-sweeper/reverted']);
  sh(root, ['revert', '--quiet', '--no-edit', '-m', '1', 'HEAD']);
  // A revert of a merge names the merge commit; name the loop's commit the way `git revert <sha>` does.
  sh(root, ['commit', '--quiet', '--amend', '-m', `Revert "fix c"\n\nThis reverts commit ${commits.reverted}.`]);
  github.pulls.push(
    { number: 1, head: 'loop/ci-sweeper/merged', base: 'main', title: 'a', body: '', draft: false, state: 'closed', merged: true, createdAt: '2026-11-18T10:00:00Z', mergedAt: '2026-11-18T14:00:00Z', mergeCommitSha: squash, checkRuns: [{ status: 'completed', conclusion: 'success' }] },
    { number: 2, head: 'loop/ci-sweeper/closed', base: 'main', title: 'b', body: '', draft: false, state: 'closed', merged: false, checkRuns: [{ status: 'completed', conclusion: 'failure' }] },
    { number: 3, head: 'loop/ci-sweeper/open', base: 'main', title: 'd', body: '', draft: false, state: 'open', merged: false, checkRuns: [{ status: 'in_progress', conclusion: null }] },
  );
  await mkdir(join(root, '.loop-runtime'), { recursive: true });
  await writeFile(
    join(root, OUTCOMES_FILE),
    [
      proposal('merged', 'tick-merged', 'pull-request', github.htmlUrl(1)),
      proposal('closed', 'tick-closed', 'pull-request', github.htmlUrl(2)),
      proposal('reverted', 'tick-reverted', 'local'),
      proposal('open', 'tick-open', 'pull-request', github.htmlUrl(3)),
    ].map((line) => JSON.stringify(line)).join('\n') + '\n',
  );
  // Six ticks: four proposals at $0.50 each, a paid no-op and a zero-token no-op (ended by a probe).
  const ticks = [
    ['tick-merged', 'proposed', 1000, 0.5], ['tick-closed', 'proposed', 1000, 0.5], ['tick-reverted', 'proposed', 1000, 0.5],
    ['tick-open', 'proposed', 1000, 0.5], ['tick-noop', 'noop', 200, 0.1], ['tick-free', 'noop', 0, null],
  ] as const;
  const runLog = ['# Loop Run Log', '', '<!-- Loop appends below this line -->'];
  const spend: string[] = [];
  ticks.forEach(([tick, kind, tokens, cost], index) => {
    runLog.push(JSON.stringify({ run_id: `2026-11-18T0${index}:00:00Z`, pattern: 'ci-sweeper', duration_s: 1, items_found: 1, actions_taken: 1, escalations: 0, tokens_estimate: tokens, outcome: kind === 'proposed' ? 'fix-proposed' : 'no-op', tick_id: tick, level: 'L2', kind }));
    if (tokens > 0) spend.push(JSON.stringify({ at: 0, day: '2026-11-18', patternId: 'ci-sweeper', tickId: tick, phase: 'implement', tokens, costUsd: cost }));
  });
  await writeFiles(root, { 'loop-run-log.md': runLog.join('\n') + '\n', '.loop-runtime/spend.jsonl': spend.join('\n') + '\n' });
});

afterAll(async () => {
  await github.close();
  await cleanupTempDirs();
});

const env = () => ({ PATH: '/nonexistent', GITHUB_TOKEN: 'test-token', GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/demo' });

async function open(): Promise<Runtime> {
  const opened = await openRuntime({ cwd: root, env: env(), clock });
  if (!opened.ok) throw new Error(JSON.stringify(opened.issues));
  return opened.runtime;
}

describe('outcomes, metrics and autonomy', () => {
  it('follows each change to its real outcome and demotes the loop once for the revert', async () => {
    const synced = await (await open()).outcomesSync('ci-sweeper');
    expect(synced.ok).toBe(true);
    if (!synced.ok) return;
    const [check] = synced.value.checks;
    expect(check!.sync!.unchecked).toEqual([]);
    const moved = Object.fromEntries(check!.sync!.changed.map((change) => [change.itemKey, `${change.to} via ${change.via}`]));
    // The open PR was asked about too (4 checked) but did not move: it stays open.
    expect(check!.sync!.checked).toBe(4);
    expect(moved).toEqual({ merged: 'merged via rest', closed: 'closed via rest', reverted: 'reverted via git' });
    expect(check!.change).toMatchObject({ from: 'L2', to: 'L1', by: 'autonomy', file: 'LOOP.md' });
    expect(check!.change!.reason).toContain(`change ${commits.reverted!.slice(0, 12)} (reverted) was reverted`);

    const loopMd = await readFile(join(root, 'LOOP.md'), 'utf8');
    expect(loopMd).toContain('level: L1 # set by hand in week one');
    expect(loopMd).toContain("# the team's settings; comments must survive a level change");
    expect(loopMd.endsWith('---\n# Loops\n\nWe run ci-sweeper. Prose below the front matter is never touched.\n')).toBe(true);
    const runLog = await readFile(join(root, 'loop-run-log.md'), 'utf8');
    expect(runLog).toMatch(/"kind":"level-change","level_from":"L2","reason":"autonomy policy: change [0-9a-f]{12} \(reverted\) was reverted/);
    expect(await readFile(join(root, 'ci-sweeper-state.md'), 'utf8')).toContain('level L2 → L1 (autonomy)');

    // The same evidence never demotes twice: the window starts at the level change.
    const again = await (await open()).outcomesSync('ci-sweeper');
    expect(again.ok && again.value.checks[0]!.change).toBe(null);
    expect(again.ok && again.value.checks[0]!.sync!.changed).toEqual([]);
  });

  it('computes acceptance, revert rate and cost per merged change from the outcomes and the spend journal', async () => {
    const result = await (await open()).metrics('ci-sweeper', { since: Date.parse('2026-11-01T00:00:00Z'), audit: false });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const loop = result.value.loops[0]!;
    expect(loop.changes).toEqual({ proposed: 4, merged: 1, closed: 1, discarded: 0, reverted: 1, open: 1 });
    expect(loop.acceptanceRate).toBe(0.25);
    expect(loop.revertRate).toBe(0.5);
    expect(loop.ticks.total).toBe(6);
    expect(loop.noopRate).toBeCloseTo(2 / 6);
    expect(loop.zeroTokenNoopShare).toBe(0.5);
    expect(loop.tokens).toEqual({ total: 4200, perTick: 700, perProposed: 1050, perMerged: 4200 });
    expect(loop.costUsd.perMerged).toBeCloseTo(2.1);
    expect(loop.costUsd.complete).toBe(true);
    expect(loop.medianTimeToMergeMs).toBe(4 * 3_600_000);
    expect(loop.checks).toEqual({ passing: 1, failing: 1, pending: 1, none: 0 });
    expect(loop.level).toBe('L1');
    expect(loop.promotion.recommended).toBe(false);
    expect(loop.promotion.blockers.join('; ')).toContain('no loop-audit score');
    // The README shows this very output (colours are on when CI is set, so compare the text).
    const readme = await readFile(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    expect(readme).toContain(stripVTControlCharacters(renderLoopMetrics(loop).join('\n')));
  });

  it('runs the next tick at the demoted level', async () => {
    const run = await (await open()).run('ci-sweeper', { backendName: 'mock' });
    expect(run.ok).toBe(true);
    if (run.ok) expect(run.value.level).toBe('L1');
  });

  it('refuses a corrupt outcomes file with the file and line instead of reading it as empty', async () => {
    const before = await readFile(join(root, OUTCOMES_FILE), 'utf8');
    await appendFile(join(root, OUTCOMES_FILE), '{"type":"proposal","pattern":"ci-sweeper"}\n');
    const result = await (await open()).outcomesSync('ci-sweeper');
    expect(result.ok && result.value.checks[0]!.syncError).toMatch(/outcomes\.jsonl:\d+ is not an outcome record/);
    await expect((await open()).metrics('ci-sweeper', { since: 0, audit: false })).rejects.toThrow(/outcomes\.jsonl:\d+/);
    await writeFile(join(root, OUTCOMES_FILE), before);
  });

  it('promotes only with --yes, with the evidence in the run log', async () => {
    const runtime = await open();
    const asked = await runtime.promote('ci-sweeper');
    expect(asked.ok && asked.value.status).toBe('needs-confirmation');
    expect(await readFile(join(root, 'LOOP.md'), 'utf8')).toContain('level: L1');
    const applied = await runtime.promote('ci-sweeper', { yes: true });
    expect(applied.ok && applied.value.status).toBe('promoted');
    expect(await readFile(join(root, 'LOOP.md'), 'utf8')).toContain('level: L2 # set by hand in week one');
    expect(await readFile(join(root, 'loop-run-log.md'), 'utf8')).toMatch(/"level":"L2","kind":"level-change","level_from":"L1","reason":"promote by a human: /);
  });
});
