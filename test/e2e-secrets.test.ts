/**
 * End to end: canary secrets never reach anything loop-runtime writes. Real
 * CLI runs (`--backend mock`, L2, real git, verification in bwrap) with a
 * canary in the environment and a GitHub-token-shaped canary; commands print
 * them (from the environment, literally, and from a file in the repository),
 * and the test then searches every file the runtime wrote, every commit
 * message, every ref name, and the CLI's stdout/stderr for them.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git, listFiles, makeLoopRepo, runCli, type CliResult } from './e2e-fixtures.js';
import { cleanupTempDirs } from './git-fixtures.js';
import { worktreesDirFor } from '../src/adapters/workspace/worktrees-location.js';
import { systemClock } from '../src/adapters/clock/system-clock.js';
import { startServer } from '../src/server/serve.js';
import { cliJson } from './cli-json.js';

afterAll(cleanupTempDirs);

const alphanumeric = (length: number) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join('');
};

/** Where a canary turned up, if anywhere: files the runtime wrote, commit messages, ref names, CLI output. */
async function leaks(repo: string, canaries: readonly string[], outputs: readonly CliResult[]): Promise<string[]> {
  const tracked = new Set(git(repo, 'ls-files').split('\n').filter(Boolean));
  // A kept worktree is a checkout of the user's files (which hold the canaries on purpose); its manifest is ours.
  const written = await listFiles(repo, (path) => /^\.loop-worktrees\/[^/]+$/.test(path) && path !== '.loop-worktrees/manifest.json');
  const places: Array<[string, string]> = [];
  for (const path of written) if (!tracked.has(path)) places.push([path, await readFile(join(repo, path), 'utf8')]);
  // The worktree manifest lives outside the checkout (the state directory); it is ours, so it is checked too.
  places.push(['worktree manifest', await readFile(join(worktreesDirFor(repo), 'manifest.json'), 'utf8').catch(() => '')]);
  places.push(['commit messages', git(repo, 'log', '--all', '--format=%B')]);
  places.push(['refs', git(repo, 'for-each-ref', '--format=%(refname)')]);
  outputs.forEach((output, index) => places.push([`run ${index + 1} stdout`, output.stdout], [`run ${index + 1} stderr`, output.stderr]));
  const found: string[] = [];
  for (const [place, text] of places) for (const canary of canaries) if (text.includes(canary)) found.push(`${place} contains ${canary.slice(0, 10)}…`);
  return found;
}

describe('canary secrets', () => {
  it('an env secret echoed literally by a failing verify command, and a token shape, are redacted everywhere', async () => {
    const envCanary = `canary-${alphanumeric(20)}`;
    const tokenCanary = `ghp_${alphanumeric(36)}`;
    const repo = await makeLoopRepo(
      { 'src/example.ts': 'export const answer = 42;\n' },
      {
        maxAttempts: 2,
        verify: [`echo "from env: [$MY_SERVICE_TOKEN]"; echo "literal: ${envCanary}"; echo "shape: ${tokenCanary}"; exit 1`],
      },
    );
    // MY_SERVICE_TOKEN looks secret by name; the token is under a harmless name, so only its shape gives it away.
    const env = { MY_SERVICE_TOKEN: envCanary, DEPLOY_HINT: tokenCanary };

    const first = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock', '--level', 'L2', '--json'], env);
    expect(first.code).toBe(0);
    const tick = (cliJson(first.stdout) as { ticks: Array<{ kind: string; verification: { evidence: Array<{ exitCode: number; output: string }> } }> }).ticks[0]!;
    expect(tick.kind).toBe('rejected');
    const output = tick.verification.evidence[0]!.output;
    // The sandbox never saw the variable; the literal and the shape were printed and redacted.
    expect(output).toContain('from env: []');
    expect(output).toContain('literal: [REDACTED]');
    expect(output).toContain('shape: [REDACTED]');

    // Second attempt, text output and CI progress lines on stderr: the last attempt escalates and keeps its worktree.
    const second = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock', '--level', 'L2'], { ...env, CI: 'true' });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('escalated');
    expect(second.stderr).not.toBe('');
    const manifest = JSON.parse(await readFile(join(worktreesDirFor(repo), 'manifest.json'), 'utf8')) as { worktrees: Array<{ status: string }> };
    expect(manifest.worktrees.map((worktree) => worktree.status)).toContain('escalated');

    expect(await leaks(repo, [envCanary, tokenCanary], [first, second])).toEqual([]);
  });

  it('a file holding the canaries, named by triage and printed by the verifier, leaks into nothing the runtime writes', async () => {
    const envCanary = `canary-${alphanumeric(20)}`;
    const tokenCanary = `ghp_${alphanumeric(36)}`;
    const repo = await makeLoopRepo(
      { 'config/service.txt': `service credential ${envCanary}\nbackup ${tokenCanary}\n`, 'src/example.ts': 'export const answer = 1;\n' },
      { verify: ['cat config/service.txt', `test -n "${envCanary}"`], backendOptions: { targetPath: 'config/service.txt' }, protectedPaths: [] },
    );
    const env = { MY_SERVICE_TOKEN: envCanary };
    const result = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock', '--level', 'L2', '--json'], env);
    expect(result.code).toBe(0);
    const tick = (cliJson(result.stdout) as { ticks: Array<{ kind: string; commit?: { branch: string }; verification: { evidence: Array<{ output: string; exitCode: number }> } }> }).ticks[0]!;
    expect(tick.kind).toBe('proposed');
    expect(tick.verification.evidence[0]!.output).toBe('service credential [REDACTED]\nbackup [REDACTED]\n// tidied by loop-runtime mock backend (' + tick.verification.evidence[0]!.output.split('(')[1]);
    // A passing command whose text holds the env secret counts as evidence under its own name, redacted where shown.
    expect(tick.verification.evidence.map((entry) => entry.exitCode)).toEqual([0, 0]);
    expect(git(repo, 'log', '-1', '--format=%B', tick.commit!.branch)).toContain('- `test -n "[REDACTED]"` → exit 0');
    // The commit carries the user's file (their content, their secret) but no message or ref names the canary.
    expect(git(repo, 'show', `${tick.commit!.branch}:config/service.txt`)).toContain(envCanary);
    const status = await runCli(repo, ['status', '--json'], env);
    expect(status.code).toBe(0);
    expect(await leaks(repo, [envCanary, tokenCanary], [result, status])).toEqual([]);
  });

  it('secret shapes from the maintained rule set, URL credentials and a repository .env value reach no recording, journal, log, state, ledger, --json or console response', async () => {
    const upper = (length: number) => alphanumeric(length * 2).replace(/[^A-Z0-9]/g, '').padEnd(length, 'Q').slice(0, length);
    const canaries = {
      npm: `npm_${alphanumeric(36)}`,
      stripe: `sk_live_${alphanumeric(24)}`,
      gitlab: `glpat-${alphanumeric(20)}`,
      aws: `AKIA${upper(16)}`,
      urlPassword: alphanumeric(18),
      // A harmless-looking value: only the repository's .env says it is a secret.
      dotenv: `plain${alphanumeric(20)}`,
    };
    // The allowed twins: ordinary text and code printed beside them stay readable.
    const twins = ['const token = input.slice(start, index)', 'tokens: 4200 in 3 phases', 'https://example.test/docs?page=2'];
    const repo = await makeLoopRepo(
      { 'src/example.ts': 'export const answer = 42;\n', '.env': `SERVICE_PASSWORD=${canaries.dotenv}\n` },
      {
        maxAttempts: 3,
        verify: [
          [
            `echo "npm ${canaries.npm}"`,
            `echo "stripe ${canaries.stripe}"`,
            `echo "gitlab ${canaries.gitlab}"`,
            `echo "aws ${canaries.aws}"`,
            `echo "remote https://deploy:${canaries.urlPassword}@git.example.test/repo.git"`,
            `echo "dotenv ${canaries.dotenv}"`,
            ...twins.map((twin) => `echo "${twin}"`),
            'exit 1',
          ].join('; '),
        ],
      },
    );
    const recording = join(repo, 'loops', 'daily-triage', 'recordings', 'leak.json');
    const result = await runCli(repo, ['run', 'daily-triage', '--backend', 'mock', '--level', 'L2', '--json', '--record', recording]);
    expect(result.code).toBe(0);
    const tick = (cliJson(result.stdout) as { ticks: Array<{ kind: string; verification: { evidence: Array<{ output: string }> } }> }).ticks[0]!;
    expect(tick.kind).toBe('rejected');
    const output = tick.verification.evidence[0]!.output;
    for (const twin of twins) expect(output).toContain(twin);
    expect(output).toContain('remote https://deploy:[REDACTED]@git.example.test/repo.git');
    expect(output.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(6);

    const secrets = Object.values(canaries);
    const read = (path: string) => readFile(join(repo, path), 'utf8');
    const places: Record<string, string | undefined> = {
      recording: await readFile(recording, 'utf8'),
      'events.jsonl': await read('.loop-runtime/events.jsonl'),
      'run log': await read('loop-run-log.md'),
      'STATE.md': await read('STATE.md'),
      'loop-ledger.json': await read('loop-ledger.json'),
      '--json': result.stdout,
    };
    // Each place holds the tick's text (a file that lost it would pass vacuously).
    for (const place of ['recording', 'events.jsonl', '--json']) expect(places[place], place).toContain('[REDACTED]');
    expect(places['loop-ledger.json']).toContain('daily-triage');
    // The console over the same repository: the tick's detail (its full TickResult from the journal), history and events.
    const tickId = (cliJson(result.stdout) as { ticks: Array<{ tickId: string }> }).ticks[0]!.tickId;
    const server = await startServer({ repos: [repo], env: { ...process.env }, clock: systemClock, port: 0 });
    try {
      for (const path of [`api/runs/${tickId}`, 'api/runs', 'api/inbox', 'api/loops']) {
        const response = await fetch(`${server.url}${path}`, { headers: { 'x-loop-runtime-token': server.token } });
        expect(response.status, path).toBe(200);
        places[`console ${path}`] = await response.text();
      }
    } finally {
      await server.close();
    }
    expect(places[`console api/runs/${tickId}`]).toContain('[REDACTED]');
    const found = Object.entries(places).flatMap(([place, text]) => secrets.filter((secret) => (text ?? '').includes(secret)).map((secret) => `${place} contains ${secret.slice(0, 8)}…`));
    expect(found).toEqual([]);
    expect(await leaks(repo, secrets, [result])).toEqual([]);
  });
});
