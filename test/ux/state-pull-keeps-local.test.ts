/**
 * `state pull` never drops local state: spend journalled, run-log lines and a
 * `loop-pause-all: true` line added since the last sync survive a pull of a
 * state branch another runner moved on (a real bare remote, real clones).
 */
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileKillSwitch } from '../../src/adapters/kill-switch/file-kill-switch.js';
import { pullState, pushState, stateFilesFor } from '../../src/adapters/state-branch/state-branch.js';

const ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const FILES = stateFilesFor([{ state: 'STATE.md', runLog: 'loop-run-log.md', ledger: 'loop-ledger.json' }]);
const MARKER = '<!-- Loop appends below this line -->';
const noWait = async () => {};
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function spend(dir: string, tickId: string, at: number): Promise<void> {
  await mkdir(join(dir, '.loop-runtime'), { recursive: true });
  await appendFile(join(dir, '.loop-runtime', 'spend.jsonl'), `${JSON.stringify({ at, day: '2026-11-23', patternId: 'ci-sweeper', tickId, phase: 'triage', tokens: 1000, costUsd: null })}\n`);
  await appendFile(join(dir, 'loop-run-log.md'), `${JSON.stringify({ run_id: new Date(at).toISOString().replace(/\.\d+Z$/, 'Z'), pattern: 'ci-sweeper', tokens_estimate: 1000, outcome: 'no-op', tick_id: tickId })}\n`);
}

describe('state pull with local changes', () => {
  it('keeps local spend, run-log lines and a pause line while taking the other runner\'s state', async () => {
    const base = await mkdtemp(join(tmpdir(), 'state-pull-'));
    dirs.push(base);
    const remote = join(base, 'remote.git');
    git(base, 'init', '-q', '--bare', '-b', 'main', remote);
    const seed = join(base, 'seed');
    git(base, 'clone', '-q', remote, seed);
    await writeFile(join(seed, 'STATE.md'), '# Loop State\nLast run: never\n');
    await writeFile(join(seed, 'loop-run-log.md'), `# Loop Run Log\n\n${MARKER}\n`);
    git(seed, 'add', '.');
    git(seed, 'commit', '-qm', 'init');
    git(seed, 'push', '-q', 'origin', 'HEAD:main');
    const local = join(base, 'local');
    const other = join(base, 'other');
    git(base, 'clone', '-q', `file://${remote}`, local);
    git(base, 'clone', '-q', `file://${remote}`, other);

    // Both in sync with a first state commit.
    await spend(local, 'first', Date.UTC(2026, 10, 23, 6));
    await pushState({ root: local, files: FILES, sleep: noWait });
    await pullState({ root: other, files: FILES, sleep: noWait });

    // The other runner ticks and pushes; locally a tick journals spend and a human pauses every loop.
    await spend(other, 'other-tick', Date.UTC(2026, 10, 23, 8));
    await pushState({ root: other, files: FILES, sleep: noWait });
    await spend(local, 'local-tick', Date.UTC(2026, 10, 23, 9));
    await appendFile(join(local, 'STATE.md'), 'loop-pause-all: true\n');

    const pulled = await pullState({ root: local, files: FILES, sleep: noWait });
    expect(pulled.files).toEqual(expect.arrayContaining([{ path: '.loop-runtime/spend.jsonl', action: 'merged' }, { path: 'STATE.md', action: 'kept' }]));
    const journal = (await readFile(join(local, '.loop-runtime', 'spend.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line).tickId);
    expect(journal).toEqual(['first', 'other-tick', 'local-tick']);
    const runLog = await readFile(join(local, 'loop-run-log.md'), 'utf8');
    expect(runLog).toContain('"tick_id":"local-tick"');
    expect(runLog).toContain('"tick_id":"other-tick"');
    expect((await new FileKillSwitch({ root: local, stateFile: 'STATE.md', env: {} }).check()).paused).toBe(true);

    // Pulling again changes nothing, and the next push carries the local records to the branch.
    await pullState({ root: local, files: FILES, sleep: noWait });
    expect((await readFile(join(local, '.loop-runtime', 'spend.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(3);
    await pushState({ root: local, files: FILES, sleep: noWait });
    await pullState({ root: other, files: FILES, sleep: noWait });
    expect(await readFile(join(other, '.loop-runtime', 'spend.jsonl'), 'utf8')).toContain('local-tick');
  });
});
