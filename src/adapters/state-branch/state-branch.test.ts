import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullState, pushState, stateFilesFor, STATE_MANIFEST, type StateFile } from './state-branch.js';

const ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const MARKER = '<!-- Loop appends below this line -->';
const FILES: StateFile[] = stateFilesFor([{ state: 'STATE.md', runLog: 'loop-run-log.md', ledger: 'loop-ledger.json' }]);

let base: string;
let remote: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'state-branch-'));
  remote = join(base, 'remote.git');
  git(base, 'init', '-q', '--bare', '-b', 'main', remote);
  const seed = join(base, 'seed');
  git(base, 'clone', '-q', remote, seed);
  await writeFile(join(seed, 'STATE.md'), '# Loop State\nLast run: never\n');
  await writeFile(join(seed, 'loop-run-log.md'), `# Loop Run Log\n\n${MARKER}\n`);
  git(seed, 'add', '.');
  git(seed, 'commit', '-qm', 'init');
  git(seed, 'push', '-q', 'origin', 'HEAD:main');
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

let clones = 0;
async function runner(): Promise<string> {
  const dir = join(base, `runner-${clones++}`);
  git(base, 'clone', '-q', '--depth', '1', `file://${remote}`, dir);
  return dir;
}

/** What a tick appends: one spend line and one run-log line, tagged with the runner and round. */
async function tick(dir: string, tag: string, at: number): Promise<void> {
  await mkdir(join(dir, '.loop-runtime'), { recursive: true });
  await appendFile(join(dir, '.loop-runtime', 'spend.jsonl'), `${JSON.stringify({ at, day: '2026-09-15', patternId: 'ci-sweeper', tickId: tag, phase: 'triage', tokens: 100, costUsd: null })}\n`);
  await appendFile(join(dir, 'loop-run-log.md'), `${JSON.stringify({ run_id: new Date(at).toISOString().replace(/\.\d+Z$/, 'Z'), pattern: 'ci-sweeper', tokens_estimate: 100, outcome: 'no-op', tick_id: tag })}\n`);
}

const noWait = async () => {};
const jitter = () => new Promise<void>((done) => setTimeout(done, Math.random() * 30));

describe('state branch', () => {
  it('starts without a branch, and the first push creates it with a manifest', async () => {
    const dir = await runner();
    expect((await pullState({ root: dir, files: FILES, sleep: noWait })).commit).toBeNull();
    await tick(dir, 'first', Date.UTC(2026, 8, 15, 8));
    const pushed = await pushState({ root: dir, files: FILES, sleep: noWait });
    expect(pushed).toMatchObject({ pushed: true, attempts: 1 });
    const listed = git(dir, 'ls-tree', '-r', '--name-only', pushed.commit!).trim().split('\n');
    expect(listed).toEqual(expect.arrayContaining(['.loop-runtime/spend.jsonl', 'loop-run-log.md', 'STATE.md', STATE_MANIFEST]));
    // HEAD, the index and main are untouched.
    expect(git(dir, 'status', '--porcelain').split('\n').filter((line) => line && !line.includes('.loop-runtime'))).toEqual([' M loop-run-log.md']);
    expect(git(dir, 'log', '--format=%s', '-1')).toBe('init\n');
    // Nothing new: no commit, no push.
    expect(await pushState({ root: dir, files: FILES, sleep: noWait })).toMatchObject({ pushed: false, commit: pushed.commit });
  });

  it('loses no spend line and no run-log line when several runners push at once, round after round', async () => {
    const runners = await Promise.all([runner(), runner(), runner()]);
    const expected: string[] = [];
    for (let round = 0; round < 2; round++) {
      for (const dir of runners) await pullState({ root: dir, files: FILES, sleep: noWait });
      await Promise.all(runners.map((dir, index) => {
        const tag = `r${round}-${index}`;
        expected.push(tag);
        return tick(dir, tag, Date.UTC(2026, 8, 15, 9 + round, index));
      }));
      const results = await Promise.all(runners.map((dir) => pushState({ root: dir, files: FILES, sleep: jitter, maxAttempts: 20 })));
      expect(results.every((result) => result.pushed)).toBe(true);
    }
    const check = await runner();
    await pullState({ root: check, files: FILES });
    const spend = (await readFile(join(check, '.loop-runtime', 'spend.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { tickId: string; at: number });
    const runLog = (await readFile(join(check, 'loop-run-log.md'), 'utf8')).split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { tick_id: string });
    for (const tag of [...expected, 'first']) {
      expect(spend.filter((entry) => entry.tickId === tag)).toHaveLength(1);
      expect(runLog.filter((entry) => entry.tick_id === tag)).toHaveLength(1);
    }
    const times = spend.map((entry) => entry.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(await readFile(join(check, 'loop-run-log.md'), 'utf8')).toMatch(/^# Loop Run Log\n\n<!-- Loop appends below this line -->\n\{/);
  });

  it('a runner whose base is stale merges what another runner pushed in between', async () => {
    const [a, b] = [await runner(), await runner()];
    await pullState({ root: a, files: FILES });
    await pullState({ root: b, files: FILES });
    await tick(b, 'b-late', Date.UTC(2026, 8, 15, 20));
    await pushState({ root: b, files: FILES });
    await tick(a, 'a-late', Date.UTC(2026, 8, 15, 21));
    await pushState({ root: a, files: FILES });
    const spend = await readFile(join(a, '.loop-runtime', 'spend.jsonl'), 'utf8');
    expect(spend).toContain('"b-late"');
    expect(spend).toContain('"a-late"');
  });

  it('on pull, a state file a human changed on main keeps the human\'s edit', async () => {
    const ticked = await runner();
    await pullState({ root: ticked, files: FILES });
    await writeFile(join(ticked, 'STATE.md'), '# Loop State\nLast run: 2026-09-16T08:00:00Z\n');
    await pushState({ root: ticked, files: FILES });
    const human = await runner();
    await writeFile(join(human, 'STATE.md'), '# Loop State\nLast run: never\nloop-pause-all: true\n');
    git(human, 'commit', '-qam', 'pause the loops');
    git(human, 'push', '-q', 'origin', 'HEAD:main');
    const next = await runner();
    const pulled = await pullState({ root: next, files: FILES });
    expect(pulled.files.find((file) => file.path === 'STATE.md')?.action).toBe('kept');
    expect(await readFile(join(next, 'STATE.md'), 'utf8')).toContain('loop-pause-all: true');
    expect(await readFile(join(next, '.loop-runtime', 'spend.jsonl'), 'utf8')).toContain('"first"');
  });

  it('retries a push the remote rejected (a runner that lost the race)', async () => {
    const hook = join(remote, 'hooks', 'pre-receive');
    await writeFile(hook, '#!/bin/sh\nif [ -f "$GIT_DIR/reject-once" ]; then rm "$GIT_DIR/reject-once"; echo "simulated race" >&2; exit 1; fi\n', { mode: 0o755 });
    await writeFile(join(remote, 'reject-once'), '');
    const dir = await runner();
    await pullState({ root: dir, files: FILES });
    await tick(dir, 'retried', Date.UTC(2026, 8, 15, 22));
    const waits: number[] = [];
    const pushed = await pushState({ root: dir, files: FILES, sleep: async (attempt) => void waits.push(attempt) });
    expect(pushed).toMatchObject({ pushed: true, attempts: 2 });
    expect(waits).toEqual([1]);
    await rm(hook);
  });

  it('says what is wrong when the remote does not exist', async () => {
    const dir = await runner();
    await expect(pullState({ root: dir, files: FILES, remote: 'nowhere' })).rejects.toThrow(/Could not reach the remote "nowhere".*To fix/s);
    // git's whole message, not its last line ("and the repository exists.").
    await expect(pullState({ root: dir, files: FILES, remote: 'nowhere' })).rejects.toThrow(/Could not reach the remote "nowhere": fatal: 'nowhere' does not appear to be a git repository/);
  });
});
