/**
 * Our gate decisions against the real loop-gate: the library on hundreds of
 * generated cases, and the two CLIs side by side (same flags, same output,
 * same exit codes).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkGate as loopGateCheck } from '@cobusgreyling/loop-gate';
import { checkGate, DEFAULT_GATE_POLICY, GATE_ACTIONS, type GateAction } from '../src/core/gate/check-gate.js';
import { main } from '../src/cli/main.js';
import { cliJson } from './cli-json.js';
import { seededRandom } from './seeded-random.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const loopGateBin = join(root, 'node_modules', '.bin', 'loop-gate');

const PATH_POOL = [
  '.env', '.env.local', 'src/index.ts', 'src/auth/login.ts', 'auth/session.ts', 'docs/intro.md', 'README.md',
  'config/secrets/prod.json', '.secrets/token', 'db/migrations/001.sql', 'payments/charge.ts', 'api_key.txt',
  'infra/.terraform/state', 'k8s/production/deploy.yaml', 'docs/guide/setup.md', 'test/app.test.ts',
  'billing/invoice.ts', 'lib/aws_secret.py', 'CHANGELOG.md', 'packages/a/src/x.ts', '.github/workflows/ci.yml',
];
const GLOB_POOL = ['.env', '.env.*', '**/secrets/**', '**/*_key*', '**/*_secret*', 'auth/**', 'docs/**', '**/*.md', 'src/**', '*.md', '**/migrations/**', '.github/**', 'payments/**'];

function pick<T>(next: () => number, pool: readonly T[], count: number): T[] {
  return Array.from({ length: count }, () => pool[Math.floor(next() * pool.length)]!);
}

describe('gate compatibility with loop-gate', () => {
  it('decides exactly like loop-gate on 600 generated cases', () => {
    const next = seededRandom(20261121);
    let escalations = 0;
    for (let index = 0; index < 600; index++) {
      const policy = {
        denylist: pick(next, GLOB_POOL, Math.floor(next() * 4)),
        maxFiles: next() < 0.3 ? null : 1 + Math.floor(next() * 6),
        autoMergeAllowlist: pick(next, GLOB_POOL, Math.floor(next() * 4)),
      };
      const paths = [...new Set(pick(next, PATH_POOL, 1 + Math.floor(next() * 7)))];
      const action = GATE_ACTIONS[Math.floor(next() * GATE_ACTIONS.length)]!;
      const theirs = loopGateCheck({
        config: { version: 1, denylist: policy.denylist, ...(policy.maxFiles === null ? {} : { maxFiles: policy.maxFiles }), autoMergeAllowlist: policy.autoMergeAllowlist },
        action,
        paths,
      });
      const ours = checkGate(policy, action, paths);
      expect({ case: index, ...ours }).toEqual({ case: index, ...theirs });
      if (!ours.allowed) escalations++;
    }
    // The generator exercises both outcomes, or the comparison proves little.
    expect(escalations).toBeGreaterThan(100);
    expect(escalations).toBeLessThan(550);
  });

  describe('CLI side by side', () => {
    let directory: string;
    beforeAll(async () => {
      directory = await mkdtemp(join(tmpdir(), 'gate-compat-'));
      await writeFile(join(directory, 'gate.yaml'), stringify({ version: 1, denylist: DEFAULT_GATE_POLICY.denylist, maxFiles: 3, autoMergeAllowlist: ['docs/**', '**/*.md'] }));
      await writeFile(join(directory, 'broken.yaml'), 'version: 2\ndenylist: nope\n');
    });

    async function theirs(args: string[]): Promise<{ code: number; stdout: string }> {
      try {
        const { stdout } = await run(loopGateBin, args, { cwd: directory });
        return { code: 0, stdout };
      } catch (error) {
        const failure = error as { code: number; stdout: string };
        return { code: failure.code, stdout: failure.stdout };
      }
    }

    async function ours(args: string[]): Promise<{ code: number; stdout: string }> {
      let stdout = '';
      const code = await main(['gate', ...args], { cwd: directory, stdout: (text) => (stdout += text), stderr: () => {}, env: { NO_COLOR: '1' }, isTTY: false });
      return { code, stdout };
    }

    const cases: Array<[string, string[]]> = [
      ['allowed commit', ['check', '--action', 'commit', '--paths', 'src/a.ts,src/b.ts']],
      ['denylisted', ['check', '--action', 'commit', '--paths', 'src/a.ts,.env']],
      ['too many files', ['check', '--action', 'merge', '--paths', 'a.ts,b.ts,c.ts,d.ts']],
      ['auto-merge allowlisted', ['check', '--action', 'auto-merge', '--paths', 'docs/a.md,README.md']],
      ['auto-merge not allowlisted', ['check', '--action', 'auto-merge', '--paths', 'docs/a.md,src/x.ts', '--json']],
      ['json decision', ['check', '--action', 'commit', '--paths', 'auth/x.ts', '--json']],
      ['bad action', ['check', '--action', 'deploy', '--paths', 'a.ts']],
      ['missing paths', ['check', '--action', 'commit']],
      ['missing gate file', ['check', '--action', 'commit', '--paths', 'a.ts', '--gate-file', 'nope.yaml']],
      ['invalid gate file', ['check', '--action', 'commit', '--paths', 'a.ts', '--gate-file', 'broken.yaml']],
    ];

    it.each(cases)('%s: same exit code and stdout', async (_name, args) => {
      const [expected, actual] = await Promise.all([theirs(args), ours(args)]);
      expect(actual.code).toBe(expected.code);
      // With --json, loop-gate's decision is the envelope's data (every command prints one envelope).
      if (expected.code !== 1 && args.includes('--json')) expect(`${JSON.stringify(cliJson(actual.stdout), null, 2)}\n`).toBe(expected.stdout);
      else if (expected.code !== 1) expect(actual.stdout).toBe(expected.stdout);
      else expect(actual.stdout.trim()).toBe('');
    });
  });
});
