/**
 * README's "From the demo to your repository's CI", walked command by command
 * on a fresh loop-init scaffold. The commands come from the README itself (its
 * ```sh blocks in that section, in order), so the section and this test cannot
 * drift apart: a command the test does not know fails it, and so does a
 * command it expects that the README no longer shows.
 *
 * What the test changes, and why: `npm install` installs the same packages from
 * this checkout and its node_modules (no network), so package.json first names
 * a local path — which `ci init` must refuse, and the user's fix (the pinned git
 * spec the README shows) is then applied; `export` sets the test's key;
 * `apt-get` is checked (bwrap must be installed) rather than run; `npx` is the
 * real npx, running the project's installed copy. The agent is the real `claude`
 * binary against a local fake of the Anthropic API, in an isolated HOME.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeAnthropicServer, text } from './fakes/fake-anthropic-server.js';
import { ADD_BUG_TRIAGE, PACKAGE_ROOT, spendEntries } from './e2e-fixtures.js';
import { GIT_ENV } from './git-fixtures.js';

const run = promisify(execFile);
const LOOP_INIT = join(PACKAGE_ROOT, 'node_modules', '.bin', 'loop-init');
const CLAUDE_PACKAGE = join(PACKAGE_ROOT, 'node_modules', '@anthropic-ai', 'claude-code');
const SECTION = "## From the demo to your repository's CI";

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** The section's shell commands, in order (comments and blank lines dropped). */
async function readmeCommands(): Promise<string[]> {
  const readme = await readFile(join(PACKAGE_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(SECTION);
  expect(start, `README.md has the section "${SECTION}"`).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n## ', start + SECTION.length);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((match) =>
    match[1]!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function exec(file: string, args: string[], cwd: string, env: Record<string, string>): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe("README: from the demo to your repository's CI", () => {
  it('every command of the section works, in order, on a fresh loop-init scaffold', async () => {
    const commands = await readmeCommands();
    const repo = await mkdtemp(join(tmpdir(), 'readme-path-'));
    const home = await mkdtemp(join(tmpdir(), 'readme-path-home-'));
    cleanups.push(() => rm(repo, { recursive: true, force: true }), () => rm(home, { recursive: true, force: true }));
    await run('git', ['init', '--quiet', '--initial-branch=main'], { cwd: repo });
    await run(LOOP_INIT, [repo, '--pattern', 'daily-triage', '--tool', 'claude'], { cwd: repo });
    await writeFile(join(repo, 'package.json'), `${JSON.stringify({ name: 'my-project', version: '1.0.0', private: true }, null, 2)}\n`);
    await writeFile(join(repo, '.gitignore'), 'node_modules\n');
    await run('git', ['add', '-A'], { cwd: repo });
    await run('git', ['commit', '--quiet', '-m', 'loop-init'], { cwd: repo, env: { ...process.env, ...GIT_ENV } });

    // The model: a triage that reports one finding (no change), for each real tick.
    const server = await startFakeAnthropicServer([text(ADD_BUG_TRIAGE, { input: 1100, output: 60 })]);
    cleanups.push(() => server.close());
    const env: Record<string, string> = {
      PATH: `${join(repo, 'node_modules', '.bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: home,
      ANTHROPIC_BASE_URL: server.url,
      CLAUDE_CODE_MAX_RETRIES: '0',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      NO_COLOR: '1',
      CI: '',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      ...GIT_ENV,
    };

    // What each command must do. Every README command must be listed here, and every entry must be in the README.
    const expected = new Map<string, (outcome: Outcome) => Promise<void> | void>([
      ['npm install --save-dev github:<owner>/loop-runtime#<commit>', (outcome) => expect(outcome.code).toBe(0)],
      ['npm install --save-dev @anthropic-ai/claude-code', (outcome) => expect(outcome.code).toBe(0)],
      ['export ANTHROPIC_API_KEY=sk-ant-your-key', () => expect(env.ANTHROPIC_API_KEY).toBe('sk-ant-your-key')],
      ['sudo apt-get install -y bubblewrap', (outcome) => expect(outcome.code, 'bubblewrap is installed').toBe(0)],
      [
        'npx loop-runtime doctor',
        (outcome) => {
          expect(outcome.stderr).not.toMatch(/error/i);
          expect(outcome.code).toBe(0);
          expect(outcome.stdout).toContain('claude-code');
          expect(outcome.stdout).toContain('ANTHROPIC_API_KEY');
          expect(outcome.stdout).not.toContain('sk-ant-your-key');
        },
      ],
      ['npx loop-runtime plan daily-triage', (outcome) => expect(outcome.code).toBe(0)],
      [
        'npx loop-runtime run daily-triage --dry-run',
        (outcome) => {
          expect(outcome.code).toBe(0);
          expect(outcome.stdout).toContain('via mock backend (dry-run: nothing written)');
        },
      ],
      [
        'npx loop-runtime run daily-triage --backend mock',
        (outcome) => {
          expect(outcome.code).toBe(0);
          expect(outcome.stdout).toContain('via mock backend');
        },
      ],
      [
        'npx loop-runtime status',
        (outcome) => {
          expect(outcome.code).toBe(0);
          expect(outcome.stdout).toContain('daily-triage');
          expect(outcome.stdout).toContain('backend claude-code');
        },
      ],
      [
        'npx loop-runtime reset daily-triage --mock',
        (outcome) => {
          expect(outcome.code).toBe(0);
          expect(outcome.stdout).toContain("Removed the mock's records of daily-triage");
        },
      ],
      [
        'npx loop-runtime run daily-triage',
        async (outcome) => {
          expect(outcome.code).toBe(0);
          expect(outcome.stdout).toContain('via claude-code');
          // The tick really went through claude to the model, and its spend is on disk with the real backend.
          expect(server.messageRequests().length).toBeGreaterThanOrEqual(1);
          expect((await spendEntries(repo)).filter((entry) => entry.phase === 'triage').length).toBeGreaterThanOrEqual(1);
        },
      ],
      ['npx loop-runtime inbox', (outcome) => expect(outcome.code).toBe(0)],
      [
        'npx loop-runtime ci init',
        async (outcome) => {
          expect(outcome.code).toBe(0);
          const workflow = await readFile(join(repo, '.github', 'workflows', 'loop-runtime.yml'), 'utf8');
          expect(workflow).toContain('npx --no loop-runtime run daily-triage');
          expect(workflow).toContain('@anthropic-ai/claude-code');
          expect(workflow).toContain('bubblewrap');
          expect(workflow).toContain('ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}');
        },
      ],
      ['git add .github/workflows/loop-runtime.yml package.json package-lock.json', (outcome) => expect(outcome.code).toBe(0)],
      ['git commit -m "Run loop-runtime on a schedule"', (outcome) => expect(outcome.code).toBe(0)],
    ]);
    expect(commands.filter((command) => !expected.has(command)), 'README commands this test does not know').toEqual([]);
    expect([...expected.keys()].filter((command) => !commands.includes(command)), 'commands the README no longer shows').toEqual([]);

    const seen = new Map<string, number>();
    for (const command of commands) {
      seen.set(command, (seen.get(command) ?? 0) + 1);
      let outcome: Outcome;
      if (command === 'npm install --save-dev github:<owner>/loop-runtime#<commit>') {
        outcome = await exec('npm', ['install', '--save-dev', '--offline', '--ignore-scripts', PACKAGE_ROOT], repo, env);
      } else if (command === 'npm install --save-dev @anthropic-ai/claude-code') {
        outcome = await exec('npm', ['install', '--save-dev', '--offline', '--ignore-scripts', CLAUDE_PACKAGE], repo, env);
      } else if (command.startsWith('export ')) {
        const [name, value] = command.slice('export '.length).split('=') as [string, string];
        env[name] = value;
        outcome = { code: 0, stdout: '', stderr: '' };
      } else if (command === 'sudo apt-get install -y bubblewrap') {
        outcome = await exec('bwrap', ['--version'], repo, env);
      } else if (command === 'npx loop-runtime ci init') {
        // Installed from this checkout, package.json names a path the runner does not have: ci init refuses it
        // with the fix, and the user pins a commit, as the README's first command does.
        const refused = await exec('npx', ['loop-runtime', 'ci', 'init'], repo, env);
        expect(refused.code).toBe(3);
        expect(refused.stderr).toContain('a path outside this repository that a CI runner does not have');
        const manifest = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
        manifest.devDependencies['loop-runtime'] = 'github:owner/loop-runtime#0123456789abcdef0123456789abcdef01234567';
        await writeFile(join(repo, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
        outcome = await exec('npx', ['loop-runtime', 'ci', 'init'], repo, env);
      } else if (command.startsWith('npx ')) {
        outcome = await exec('npx', command.slice('npx '.length).split(' '), repo, env);
      } else if (command.startsWith('git ')) {
        const args = command.slice('git '.length).match(/"[^"]*"|\S+/g)!.map((word) => word.replace(/^"|"$/g, ''));
        outcome = await exec('git', args, repo, env);
      } else {
        throw new Error(`no way to run README command: ${command}`);
      }
      await expected.get(command)!(outcome);
    }
    // The mock run was reset before the real one: the journal holds only the real agent's spend.
    const journal = (await readFile(join(repo, '.loop-runtime', 'spend.jsonl'), 'utf8')).split('\n').filter(Boolean);
    expect(journal.length).toBeGreaterThan(0);
    expect(journal.filter((line) => (JSON.parse(line) as { backend?: string }).backend !== 'claude-code')).toEqual([]);
    const committed = await exec('git', ['show', '--stat', '--format=%s', 'HEAD'], repo, env);
    expect(committed.stdout).toContain('Run loop-runtime on a schedule');
    expect(committed.stdout).toContain('.github/workflows/loop-runtime.yml');
  });
});
