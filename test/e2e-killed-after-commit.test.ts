/**
 * End to end, with a real kill: a tick is killed with SIGKILL after its
 * commit (the worktree manifest says `merged`) and before its run-log line —
 * here while its push waits in a pre-push hook. Nothing reported the commit,
 * its branch or its spend. The next tick's start writes the missing run-log
 * line (`recovered: true`, with the commit and branch), notes it in the state
 * file, reports it in the run summary, and `status` shows it; once only.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WorktreeStore } from '../src/adapters/workspace/git-worktree-store.js';
import { BIN, makeLoopRepo, readText, runCli, runLogLines } from './e2e-fixtures.js';
import { addBareRemote, cleanupTempDirs, GIT_ENV } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

describe('a tick killed between its commit and its run-log line', () => {
  it('is recorded by the next tick start (recovered), shown by status, and only once', async () => {
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { verify: ['true'], delivery: { mode: 'push' } });
    const remote = await addBareRemote(repo);
    const marker = `${repo}-pushing`;
    // The remote's receive-pack runs its own hooks; loop-runtime runs none of the repository's (no pre-push here).
    const hook = join(remote, 'hooks', 'pre-receive');
    await writeFile(hook, `#!/bin/sh\necho pushing > ${JSON.stringify(marker)}\nsleep 120\n`);
    await chmod(hook, 0o755);

    const child = spawn(process.execPath, [BIN, 'run', 'daily-triage', '--level', 'L2', '--backend', 'mock'], {
      cwd: repo,
      stdio: 'ignore',
      detached: true,
      env: { ...process.env, ...GIT_ENV, NO_COLOR: '1', CI: '' },
    });
    const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
    for (let waited = 0; !existsSync(marker); waited += 50) {
      if (waited > 60_000) throw new Error('the tick never reached its push');
      await new Promise((done) => setTimeout(done, 50));
    }
    process.kill(-child.pid!, 'SIGKILL'); // the CLI, git and the hook: the whole process group
    expect(await exited).toBe('SIGKILL');
    await rm(hook);

    // What the kill left: a committed worktree entry and no run-log line for its tick.
    const manifest = await new WorktreeStore(repo).read();
    const entry = manifest.worktrees.find((candidate) => candidate.status === 'merged')!;
    expect(entry, JSON.stringify(manifest)).toMatchObject({ pattern: 'daily-triage', commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect((await runLogLines(repo)).map((line) => line['tick_id'])).not.toContain(entry.tickId);

    // The next tick (report-only, so it does not act on the same item again) recovers it first.
    const next = await runCli(repo, ['run', 'daily-triage', '--level', 'L1', '--backend', 'mock', '--json']);
    expect(next.code, next.stdout + next.stderr).toBe(0);
    const summary = cliJson(next.stdout) as { recovery?: { recoveredTicks: Array<{ tickId: string; commit: string; branch: string }> }; notes: string[] };
    expect(summary.recovery?.recoveredTicks).toEqual([expect.objectContaining({ tickId: entry.tickId, commit: entry.commit, branch: entry.branch })]);
    expect(summary.notes.some((note) => note.includes(`tick ${entry.tickId!}`) && note.includes('recovered'))).toBe(true);
    const recovered = (await runLogLines(repo)).filter((line) => line['tick_id'] === entry.tickId);
    expect(recovered).toEqual([expect.objectContaining({ recovered: true, commit: entry.commit, branch: entry.branch, outcome: 'fix-proposed', tokens_estimate: 0 })]);
    expect(await readText(repo, 'STATE.md')).toContain(`tick ${entry.tickId!} committed ${entry.commit!.slice(0, 12)}`);

    const status = await runCli(repo, ['status', '--json']);
    const loop = (cliJson(status.stdout) as { loops: Array<{ id: string; lastRuns: Array<Record<string, unknown>>; recoveries: Array<{ recoveredTicks: Array<{ commit: string }> }> }> }).loops.find((candidate) => candidate.id === 'daily-triage')!;
    expect(loop.lastRuns.some((run) => run['recovered'] === true && run['commit'] === entry.commit)).toBe(true);
    expect(loop.recoveries[0]?.recoveredTicks[0]?.commit).toBe(entry.commit);
    expect((await runCli(repo, ['status'])).stdout).toContain(`recovered: ${entry.commit!.slice(0, 12)} on ${entry.branch}`);

    const again = await runCli(repo, ['run', 'daily-triage', '--level', 'L1', '--backend', 'mock', '--json']);
    expect((cliJson(again.stdout) as { recovery?: unknown }).recovery).toBeUndefined();
    expect((await runLogLines(repo)).filter((line) => line['tick_id'] === entry.tickId)).toHaveLength(1);
    expect((await readFile(join(repo, '.loop-runtime', 'recovery.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(1);
  });
});
