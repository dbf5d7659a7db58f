/**
 * What a kill -9 leaves behind, made by real processes killed at the exact
 * point, and what the next tick does about it:
 * - an atomic write killed after its temporary file exists: the temporary is
 *   removed at the next tick start (only `<owned file>.<digits>`, never a user
 *   file), reported, and kept out of `git status` meanwhile;
 * - a lock directory whose holder was killed: taken over at once (no waiting
 *   for the 10 s mtime rule), while a live holder is still waited for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isLoopRuntimeError } from '../src/core/errors.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import { withFileLock, type FileLockEvent } from '../src/adapters/fs/atomic-file.js';
import { WorktreeStore } from '../src/adapters/workspace/git-worktree-store.js';
import { recoverAtTickStart, RECOVERY_LOG } from '../src/adapters/recovery/tick-start-recovery.js';
import { dailyTriagePattern } from './fixtures/patterns.js';
import { makeLoopRepo, runCli } from './e2e-fixtures.js';
import { cleanupTempDirs, makeRepo, sh } from './git-fixtures.js';
import { cliJson } from './cli-json.js';
import { bundledChild } from './bundled-child.js';

const ROOT = join(import.meta.dirname, '..');
const CHILD = join(import.meta.dirname, 'crash-child.ts');

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(cleanupTempDirs);

/** Starts the child, waits for its line starting with `expect`, returns it and the child. */
async function childAt(mode: 'write' | 'lock', file: string, marker: string): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [await bundledChild(CHILD), mode, file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const lines = createInterface({ input: child.stdout! });
  const line = await new Promise<string>((resolve, reject) => {
    lines.on('line', (text) => text.startsWith(marker) && resolve(text));
    child.on('exit', (code) => reject(new Error(`crash child exited ${String(code)} before "${marker}": ${stderr}`)));
  });
  return { child, line };
}

async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise((done) => child.on('exit', done));
  child.kill('SIGKILL');
  await exited;
}

const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: [] } });
const redact = (text: string) => text;

describe('an atomic write killed mid-way', () => {
  it('leaves <file>.<digits>; the next tick start removes exactly those, reports them, and git never shows them', async () => {
    const repo = await makeRepo();
    await writeFile(join(repo, 'loop-ledger.json'), '{"attempts":[]}\n');
    const manifest = new WorktreeStore(repo).manifestPath;
    await mkdir(join(manifest, '..'), { recursive: true });
    await writeFile(manifest, '{"version":1,"worktrees":[]}\n');

    const ledgerKill = await childAt('write', join(repo, 'loop-ledger.json'), 'TMP ');
    await killHard(ledgerKill.child);
    const manifestKill = await childAt('write', manifest, 'TMP ');
    await killHard(manifestKill.child);
    const leftover = ledgerKill.line.slice(4).trim();
    expect(leftover).toMatch(/loop-ledger\.json\.\d+$/);
    expect(existsSync(leftover)).toBe(true);
    expect(existsSync(manifestKill.line.slice(4).trim())).toBe(true);
    // This is the bug: the temporary shows in `git status` and `git add -A` would commit it.
    expect(sh(repo, ['status', '--porcelain', '--untracked-files=all'])).toContain(leftover.slice(repo.length + 1));

    // Look-alikes a human may own are never touched.
    const userFiles = ['loop-ledger.json.bak', 'loop-ledger.json.12a', 'notes.json.123', 'loop-ledger.json.'];
    for (const name of userFiles) await writeFile(join(repo, name), 'mine\n');

    const record = await recoverAtTickStart(repo, plan, { now: Date.parse('2026-11-23T09:00:00Z'), redact });
    // The worktree manifest lives outside the checkout (the state directory): reported by its absolute path.
    const manifestLeftover = manifestKill.line.slice(4).trim();
    expect(record?.removedTemporaryFiles).toEqual([leftover.slice(repo.length + 1), manifestLeftover].sort());
    expect(existsSync(leftover)).toBe(false);
    // Moved aside, never deleted (a human's dated copy has the same shape): both wait in .loop-runtime/recovered/.
    const aside = await readdir(join(repo, '.loop-runtime', 'recovered'));
    expect(aside.filter((name) => name.startsWith(basename(leftover)))).toHaveLength(1);
    expect(aside.filter((name) => name.startsWith(basename(manifestLeftover)))).toHaveLength(1);
    for (const name of userFiles) expect(await readFile(join(repo, name), 'utf8')).toBe('mine\n');
    expect(await readFile(join(repo, 'loop-ledger.json'), 'utf8')).toBe('{"attempts":[]}\n');
    // Reported where `status` reads it.
    const logged = (await readFile(join(repo, RECOVERY_LOG), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { loop: string; removedTemporaryFiles: string[] });
    expect(logged).toEqual([expect.objectContaining({ loop: 'daily-triage', removedTemporaryFiles: record!.removedTemporaryFiles })]);
    // Nothing left to recover: no second record.
    expect(await recoverAtTickStart(repo, plan, { now: Date.parse('2026-11-23T09:05:00Z'), redact })).toBeNull();

    // Meanwhile (before a tick removes one), a new temporary is invisible to git via .git/info/exclude.
    await writeFile(join(repo, 'loop-ledger.json.4242'), '');
    const status = sh(repo, ['status', '--porcelain', '--untracked-files=all']);
    expect(status).not.toContain('loop-ledger.json.4242');
    expect(status).toContain('loop-ledger.json.bak');
    expect(await readFile(join(repo, '.gitignore'), 'utf8').catch(() => null)).toBeNull();
  });
});

describe('a lease file creation killed before it cleaned up', () => {
  it('leaves <lease>.<host>.<pid>.<uuid>.tmp; the next tick start removes it once that pid is gone, never a live one', async () => {
    const repo = await makeRepo();
    const leases = join(repo, '.loop-runtime', 'leases');
    await mkdir(join(leases, 'items'), { recursive: true });
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((done) => gone.on('exit', done));
    const alive = spawn('sleep', ['30']);
    children.push(alive);
    await new Promise((done) => alive.on('spawn', done));
    const host = hostname().replace(/[^A-Za-z0-9._-]/g, '_');
    const uuid = '0b6c1a52-8d5e-4c1e-9d8e-2f7b6a1c9e01';
    const dead = `daily-triage.lock.${host}.${gone.pid!}.${uuid}.tmp`;
    const live = `daily-triage.lock.${host}.${alive.pid!}.${uuid}.tmp`;
    const otherHost = `daily-triage.lock.elsewhere.${gone.pid!}.${uuid}.tmp`;
    const deadItem = `0123456789abcdef0123456789abcdef.lock.${host}.${gone.pid!}.${uuid}.tmp`;
    for (const name of [dead, live, otherHost]) await writeFile(join(leases, name), '{"pid":1}');
    await writeFile(join(leases, 'items', deadItem), '');
    const record = await recoverAtTickStart(repo, plan, { now: Date.parse('2026-11-23T09:00:00Z'), redact });
    expect(record?.removedTemporaryFiles).toEqual([`.loop-runtime/leases/${dead}`, `.loop-runtime/leases/items/${deadItem}`]);
    expect((await readdir(leases)).sort()).toEqual([otherHost, live, 'items'].sort());
  });
});

describe('a lock directory whose holder was killed', () => {
  it('is taken over at once (no wait), while a live holder is waited for and then refused', async () => {
    const repo = await makeRepo();
    const path = join(repo, 'loop-run-log.md');
    const { child, line } = await childAt('lock', path, 'LOCKED ');
    const holder = Number(line.split(' ')[1]);

    // The allowed twin: a live holder's lock is respected (the caller waits, then gets STATE_FAILED).
    const whileAlive: FileLockEvent[] = [];
    const refused = await withFileLock(path, async () => 'ran', { waitMs: 300, onEvent: (event) => whileAlive.push(event) }).catch((error: unknown) => error);
    expect(isLoopRuntimeError(refused) && refused.code).toBe('STATE_FAILED');
    expect(whileAlive.some((event) => event.type === 'wait')).toBe(true);
    expect(whileAlive.some((event) => event.type === 'took-over')).toBe(false);

    await killHard(child);
    expect(existsSync(`${path}.lock`)).toBe(true);
    const events: FileLockEvent[] = [];
    expect(await withFileLock(path, async () => 'ran', { onEvent: (event) => events.push(event) })).toBe('ran');
    // Taken over on the first attempt by the dead-owner check, not after proper-lockfile's 10 s mtime rule.
    expect(events).toEqual([expect.objectContaining({ type: 'took-over', owner: expect.objectContaining({ pid: holder }) })]);
    expect(await readdir(repo)).not.toContain('loop-run-log.md.lock');
    expect(await readdir(repo)).not.toContain('loop-run-log.md.lock.break');
  });
});

describe('a lease file a kill left empty', () => {
  it('does not block the next `run` (it used to exit 4 promising recovery "after 35 minutes"); the takeover is reported', async () => {
    const repo = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { verify: [] });
    await mkdir(join(repo, '.loop-runtime', 'leases'), { recursive: true });
    await writeFile(join(repo, '.loop-runtime', 'leases', 'daily-triage.lock'), '');
    const result = await runCli(repo, ['run', 'daily-triage', '--level', 'L1', '--backend', 'mock', '--json']);
    expect(result.code).toBe(0);
    const summary = cliJson(result.stdout) as { notes: string[] };
    expect(summary.notes).toContainEqual(expect.stringMatching(/^recovery: took over the loop's lease: unreadable lease file \(0 bytes\)/));
  });
});
