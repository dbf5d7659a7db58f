/**
 * Verification commands (and the openai/ollama `run_command`, the same runner) see
 * the worktree, not the user's checkout — with real bubblewrap, a real repository
 * and a worktree made the way `GitWorkspace` makes it (`git worktree add`, outside
 * the checkout, in a state directory).
 *
 * Every attack prints what it finds reversed, as the real leak did, so redaction
 * cannot hide a read: only isolation can. Each attack is run twice: unsandboxed
 * (`createProcessRunner`), where it must reach the canary — the attack is real —
 * and in bubblewrap, where the canary must be nowhere in the evidence. The allowed
 * twins: reading and writing the worktree, the toolchains, `node_modules` and an
 * in-repo `.venv` whose scripts carry the checkout's absolute shebang.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandRunOptions, ReadOnlyBind } from '../src/core/ports/index.js';
import { BwrapRunner } from '../src/adapters/command-runner/bwrap-runner.js';
import { createProcessRunner } from '../src/adapters/command-runner/process-runner.js';
import { findExecutable } from '../src/adapters/command-runner/sandbox-host.js';
import { runCommandTool } from '../backends/shared/write-tools.js';
import { seededGoBuildCache } from './go-build-cache-seed.js';

const bwrapPath = await findExecutable('bwrap');
const hostPath = process.env.PATH ?? '/usr/bin:/bin';
const python = await findExecutable('python3');
const go = await findExecutable('go');
const cargo = await findExecutable('cargo');
const hasPytest = python !== null && (() => {
  try {
    execFileSync(python, ['-c', 'import pytest'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const CANARY = 'canary-dotenv-7f3a9c21e5';
const PASSWORD = 'hunter2-db-pw-4c8e1b';
const CONFIG_CANARY = 'canary-gitconfig-2b7d90';
const HOME_CANARY = 'canary-home-token-6a1f3e';
const reversed = (text: string) => [...text].reverse().join('');
const LEAKS = [CANARY, PASSWORD, CONFIG_CANARY, HOME_CANARY];

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
}

let base: string;
let checkout: string;
let stateRoot: string;
let worktree: string;
let home: string;
let binds: ReadOnlyBind[];

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'loop-verify-iso-')));
  checkout = join(base, 'checkout');
  stateRoot = join(base, 'state', 'loop-runtime');
  home = join(base, 'home');
  await mkdir(join(checkout, 'tests'), { recursive: true });
  await mkdir(join(home, '.config', 'app'), { recursive: true });
  await writeFile(join(home, '.config', 'app', 'token'), `${HOME_CANARY}\n`);
  await writeFile(join(checkout, 'README.md'), 'worktree-readme\n');
  await writeFile(join(checkout, '.gitignore'), '.env\nnode_modules/\n.venv/\n');
  await writeFile(join(checkout, 'fixture.txt'), `ordinary line\nthe database password is ${PASSWORD}\n`);
  await writeFile(join(checkout, 'tests', 'test_ok.py'), 'def test_ok():\n    assert 1 + 1 == 2\n');
  await writeFile(join(checkout, 'go.mod'), 'module example.com/iso\n\ngo 1.21\n');
  await writeFile(join(checkout, 'iso.go'), 'package iso\n\n// Two is what the test checks.\nfunc Two() int { return 1 + 1 }\n');
  await writeFile(join(checkout, 'iso_test.go'), 'package iso\n\nimport "testing"\n\nfunc TestOk(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal("math")\n\t}\n}\n');
  git(checkout, 'init', '-q', '-b', 'main');
  git(checkout, 'config', 'user.email', 't@example.com');
  git(checkout, 'config', 'user.name', 'T');
  git(checkout, 'config', 'loop.secret', CONFIG_CANARY);
  git(checkout, 'add', '.');
  git(checkout, 'commit', '-qm', 'init');
  // Untracked in the checkout: the secrets, and the dependency directories a fresh worktree lacks.
  await writeFile(join(checkout, '.env'), `API_TOKEN=${CANARY}\nDATABASE_URL=postgres://app:${PASSWORD}@db.internal/app\n`);
  await mkdir(join(checkout, 'node_modules', 'dep'), { recursive: true });
  await writeFile(join(checkout, 'node_modules', 'dep', 'index.js'), "module.exports = 'dep-ok';\n");
  binds = [{ source: join(checkout, 'node_modules'), target: '' }];
  if (hasPytest && python) {
    // --system-site-packages: the base interpreter's pytest, no registry needed.
    execFileSync(python, ['-m', 'venv', '--system-site-packages', '--without-pip', join(checkout, '.venv')], { stdio: 'ignore' });
    // As pip writes console scripts: an absolute shebang into the checkout's venv.
    const script = join(checkout, '.venv', 'bin', 'pytest');
    await writeFile(script, `#!${join(checkout, '.venv', 'bin', 'python')}\nimport sys\nimport pytest\nsys.exit(pytest.console_main())\n`);
    await chmod(script, 0o755);
    binds.push({ source: join(checkout, '.venv'), target: '' });
  }
  // As GitWorkspace makes it: a branch and a linked worktree outside the checkout.
  worktree = join(stateRoot, 'worktrees', 'checkout-1a2b', 'a1');
  await mkdir(join(stateRoot, 'worktrees', 'checkout-1a2b'), { recursive: true });
  git(checkout, 'worktree', 'add', '--quiet', '-b', 'loop/a1', worktree, 'HEAD');
  // A symbolic link in the worktree that leads to the checkout's .env.
  await symlink(join(checkout, '.env'), join(worktree, 'leak'));
  binds = binds.map((bind) => ({ ...bind, target: join(worktree, bind.source.split('/').at(-1)!) }));
});

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

/** A fake HOME; rustup's home stays where the user installed it, named by its variable. */
const env = () => ({ PATH: hostPath, HOME: home, LANG: 'C', RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(homedir(), '.rustup'), CARGO_HOME: process.env.CARGO_HOME ?? join(homedir(), '.cargo') });
/** The host /tmp stays visible (privateTmp off), so what hides the checkout (also under /tmp) is the allowlist. */
const sandboxed = (privateTmp = false) =>
  new BwrapRunner({ home, hiddenExtra: [stateRoot], env: env(), killGraceMs: 200, adjustProfile: (profile) => ({ ...profile, privateTmp }) });
const unsandboxed = () => createProcessRunner({ env: env(), killGraceMs: 200 });
const options = (extra: Partial<CommandRunOptions> = {}): CommandRunOptions => ({ cwd: worktree, timeoutMs: 600_000, readOnlyBinds: binds, ...extra });
const run = (runner: ReturnType<typeof sandboxed> | ReturnType<typeof unsandboxed>, command: string, extra: Partial<CommandRunOptions> = {}) =>
  runner.run({ command, timeoutMs: 600_000 }, options(extra));

/** Each prints what it reaches reversed (`rev`), so only isolation keeps it out. */
const ATTACKS: Array<{ name: string; command: () => string; leaks: string }> = [
  { name: "follows the .git file's gitdir to the checkout", command: () => `cat "$(sed -n 's/^gitdir: //p' .git)/../../../.env" | rev`, leaks: CANARY },
  {
    name: 'asks git for the common dir and reads the config there',
    command: () => `cat "$(git rev-parse --git-common-dir)/../.env" | rev; git config --get loop.secret | rev`,
    leaks: CANARY,
  },
  {
    name: 'reads the checkout through /proc (cwd, root, environ of every process)',
    command: () => `for p in /proc/[0-9]*; do cat "$p/root${checkout}/.env" "$p/cwd/../../../../../checkout/.env"; tr '\\0' '\\n' < "$p/environ"; done 2>/dev/null | rev`,
    leaks: CANARY,
  },
  { name: 'walks .. from the worktree', command: () => `cat ../../../../../checkout/.env 2>/dev/null | rev; cat ../../../../../checkout/.git/config | rev`, leaks: CANARY },
  { name: 'searches the whole filesystem for .env files', command: () => `find / -name .env -type f 2>/dev/null | head -20 | xargs cat 2>/dev/null | rev`, leaks: CANARY },
  { name: 'follows a symlink added in the worktree', command: () => 'cat leak | rev', leaks: CANARY },
  { name: 'reads $HOME', command: () => 'ls -la "$HOME"; cat "$HOME"/.config/app/token | rev', leaks: HOME_CANARY },
];

describe.skipIf(bwrapPath === null)('verification commands see the worktree, not the checkout (real bwrap)', () => {
  it.each(ATTACKS)('$name: the attack reaches the secret unsandboxed, and not in bwrap', async ({ command, leaks }) => {
    const open = await run(unsandboxed(), command());
    expect(open.output, 'the attack must work without the sandbox, or this test proves nothing').toContain(reversed(leaks));
    const evidence = await run(sandboxed(), command());
    for (const secret of LEAKS) {
      expect(evidence.output).not.toContain(secret);
      expect(evidence.output).not.toContain(reversed(secret));
    }
  });

  it("the openai/ollama run_command tool goes through the same runner: git's common dir leads nowhere", async () => {
    const context = (commands: ReturnType<typeof sandboxed> | ReturnType<typeof unsandboxed>) => ({
      root: worktree,
      permissions: { write: true, execute: true },
      commands,
      commandTimeoutMs: 60_000,
    });
    const attack = { command: 'cat "$(git rev-parse --git-common-dir)/../.env" | rev' };
    expect((await runCommandTool.run(attack, context(unsandboxed()))).content).toContain(reversed(CANARY));
    const outcome = await runCommandTool.run(attack, context(sandboxed()));
    expect(outcome.content).toMatch(/not a git repository/);
    for (const secret of LEAKS) expect(outcome.content).not.toContain(reversed(secret));
  });

  it("git inside finds no repository, cannot rewrite the worktree's .git file, and the host's git still works", async () => {
    const evidence = await run(sandboxed(), "git rev-parse --git-common-dir; echo 'gitdir: /tmp/evil' > .git; rm -f .git; echo exit=$?");
    expect(evidence.output).toMatch(/not a git repository/);
    expect(await readFile(join(worktree, '.git'), 'utf8')).toMatch(/^gitdir: .*\/checkout\/\.git\/worktrees\/a1/);
    expect(git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('loop/a1');
  });

  it('the allowed twin: reads and writes its worktree', async () => {
    const evidence = await run(sandboxed(), 'cat README.md; echo made > made.txt; ls /proc/self/cwd/');
    expect(evidence.exitCode).toBe(0);
    expect(evidence.output).toContain('worktree-readme');
    expect(evidence.output).toContain('made.txt');
    expect(await readFile(join(worktree, 'made.txt'), 'utf8')).toBe('made\n');
    await rm(join(worktree, 'made.txt'));
  });

  it("imports from the checkout's node_modules, bound read-only", async () => {
    const evidence = await run(sandboxed(), `node -e "console.log(require('dep'))"; echo x > node_modules/dep/new.js; echo status=$?`);
    expect(evidence.output).toContain('dep-ok');
    expect(evidence.output).toMatch(/Read-only file system/);
  });

  it.runIf(hasPytest)("runs pytest from the checkout's .venv, whose script has the checkout's absolute shebang", async () => {
    const evidence = await run(sandboxed(true), '.venv/bin/pytest -q -p no:cacheprovider tests; .venv/bin/python -c "import sys; print(sys.prefix)"');
    expect(evidence.output).toMatch(/1 passed/);
    expect(evidence.exitCode).toBe(0);
  });

  it('runs the toolchains found through PATH and the toolchain variables: node, npm, python, go, cargo', async () => {
    const commands = ['node --version', 'npm --version', ...(python ? ['python3 --version'] : []), ...(go ? ['go version'] : []), ...(cargo ? ['cargo --version'] : [])];
    const evidence = await run(sandboxed(true), commands.join(' && '));
    expect(evidence.exitCode, evidence.output).toBe(0);
    expect(evidence.output).toMatch(/^v\d+\./m);
    if (python) expect(evidence.output).toMatch(/Python 3\./);
    if (go) expect(evidence.output).toMatch(/^go version go/m);
    if (cargo) expect(evidence.output).toMatch(/^cargo \d+\./m);
  });

  it.runIf(go !== null)('builds go code into a per-run writable build cache in the private /tmp', async () => {
    // A package that imports nothing compiles alone (~0.1 s); one test binary would compile the standard library's
    // test dependencies into the empty cache (~20 s of CPU). go test runs below, and in go-build-cache and cheats-go.
    const evidence = await sandboxed(true).run({ command: 'go env GOCACHE && go build ./... && find /tmp/.cache/go-build -type f -name "*-d" | wc -l', timeoutMs: 300_000 }, options({ timeoutMs: 300_000 }));
    expect(evidence.exitCode, evidence.output).toBe(0);
    const [cache, entries] = evidence.output.trim().split('\n');
    expect(cache).toBe('/tmp/.cache/go-build');
    expect(Number(entries)).toBeGreaterThan(0);
  });

  it.runIf(go !== null)('builds and runs go tests with the build cache verification gives them (a copy of a warm one)', async () => {
    const runner = new BwrapRunner({ home, hiddenExtra: [stateRoot], env: env(), killGraceMs: 200, goBuildCache: await seededGoBuildCache(join(base, 'go-cache')) });
    const evidence = await runner.run({ command: 'go test ./... 2>&1 | tail -5', timeoutMs: 300_000 }, options({ timeoutMs: 300_000, buildCache: 'copy' }));
    expect(evidence.output).toMatch(/^ok\s+example\.com\/iso/m);
  });

  it("redacts the values of the checkout's secret files (and a URL's password alone) from the evidence", async () => {
    const evidence = await run(sandboxed(), 'cat fixture.txt');
    expect(evidence.output).toContain('ordinary line');
    expect(evidence.output).toContain('the database password is [REDACTED]');
    expect(evidence.output).not.toContain(PASSWORD);
    // The unsandboxed runner redacts the same values: it finds the checkout from the worktree too.
    expect((await run(unsandboxed(), 'cat fixture.txt')).output).toContain('the database password is [REDACTED]');
  });
});
