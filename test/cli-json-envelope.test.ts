/**
 * Every registered command's `--json` output is one envelope (src/cli/envelope.ts), on success and on failure:
 * `{ version: 1, ok, command, data | error }`, with `ok` true exactly when the exit code is 0. The table must name
 * every command in the registry, so a new command without a case here fails this test.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../src/cli/commands/index.js';
import { EnvelopeSchema } from '../src/cli/envelope-schema.js';
import { main } from '../src/cli/main.js';
import { cleanupTempDirs, makeRepo } from './git-fixtures.js';

afterAll(cleanupTempDirs);

const LOOP_MD = '---\nloop-runtime:\n  backend: mock\n  verify:\n    - "true"\n  loops:\n    daily-triage: {}\n---\n# Loops\n';
const ESCALATING = '---\nloop-runtime:\n  backend: mock\n  backendOptions:\n    targetPath: .env\n  verify:\n    - "true"\n  loops:\n    daily-triage: {}\n---\n# Loops\n';

async function cli(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const code = await main(args, { cwd, env: { ...process.env, NO_COLOR: '1', CI: '', LOOP_RUNTIME_DATABASE_URL: '', ...env }, isTTY: false, stdout: (text) => (stdout += text), stderr: () => undefined });
  return { code, stdout };
}

let root: string;
let escalating: string;
let escalatedId: string;

beforeAll(async () => {
  root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD, 'gate.yaml': 'version: 1\ndenylist: [".env"]\n' });
  await mkdir(join(root, 'out'));
  await writeFile(join(root, 'out', 'run.json'), JSON.stringify({ version: 1, ok: true, command: 'run', data: { pattern: { id: 'daily-triage' }, ticks: [{ kind: 'noop', tokens: 0 }] } }));
  escalating = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': ESCALATING });
  await cli(escalating, ['run', 'daily-triage', '--level', 'L2', '--json']);
  const inbox = EnvelopeSchema.parse(JSON.parse((await cli(escalating, ['inbox', '--json'])).stdout));
  escalatedId = (inbox.data as { items: Array<{ id: string }> }).items[0]!.id;
}, 120_000);

type Case = { args: () => string[]; cwd?: () => string; env?: Record<string, string> };
/** Per command word: a case that succeeds (exit 0) and one that fails, or why success is proven elsewhere. */
const CASES: Record<string, { success: Case | string; failure: Case }> = {
  run: { success: { args: () => ['run', 'daily-triage', '--dry-run'] }, failure: { args: () => ['run', 'no-such-loop'] } },
  gate: { success: { args: () => ['gate', 'check', '--action', 'commit', '--paths', 'src/a.ts'] }, failure: { args: () => ['gate', 'check', '--action', 'deploy', '--paths', 'a.ts'] } },
  list: { success: { args: () => ['list'] }, failure: { args: () => ['list'], cwd: () => join(root, 'out', 'missing') } },
  plan: { success: { args: () => ['plan', 'daily-triage'] }, failure: { args: () => ['plan', 'no-such-loop'] } },
  validate: { success: { args: () => ['validate'] }, failure: { args: () => ['validate'], cwd: () => join(root, 'out', 'missing') } },
  status: { success: { args: () => ['status'] }, failure: { args: () => ['status'], cwd: () => join(root, 'out', 'missing') } },
  sandbox: { success: 'test/cli-sandbox.test.ts (needs bwrap)', failure: { args: () => ['sandbox', 'nope'] } },
  state: { success: 'test/state-files.test.ts (needs a remote)', failure: { args: () => ['state', 'pull'] } },
  ci: { success: { args: () => ['ci', 'summary', 'out/run.json'] }, failure: { args: () => ['ci', 'nope'] } },
  approve: { success: 'test/git-approval.test.ts', failure: { args: () => ['approve', 'no-such-change'] } },
  reject: { success: { args: () => ['reject', escalatedId], cwd: () => escalating }, failure: { args: () => ['reject', 'no-such-change'] } },
  discard: { success: 'test/discard-cli.test.ts', failure: { args: () => ['discard', 'no-such-change'] } },
  pause: { success: { args: () => ['pause', 'daily-triage', '--by', 'tester'] }, failure: { args: () => ['pause', 'no-such-loop'] } },
  resume: { success: { args: () => ['resume', 'daily-triage', '--by', 'tester'] }, failure: { args: () => ['resume', 'no-such-loop'] } },
  deliver: { success: 'test/stranded-delivery.test.ts (needs a remote)', failure: { args: () => ['deliver', 'no-such-change'] } },
  inbox: { success: { args: () => ['inbox'] }, failure: { args: () => ['inbox', 'no-such-change'] } },
  outcomes: { success: { args: () => ['outcomes', 'sync'] }, failure: { args: () => ['outcomes', 'nope'] } },
  metrics: { success: { args: () => ['metrics', '--no-audit'] }, failure: { args: () => ['metrics', '--since', 'whenever'] } },
  promote: { success: 'test/outcomes.test.ts (needs a track record)', failure: { args: () => ['promote', 'no-such-loop'] } },
  replay: { success: 'test/replay-cli.test.ts (needs a recording)', failure: { args: () => ['replay', 'out/missing.json'] } },
  test: { success: { args: () => ['test'] }, failure: { args: () => ['test', '--level', 'L9'] } },
  reset: { success: { args: () => ['reset', 'daily-triage', '--mock'] }, failure: { args: () => ['reset', 'daily-triage'] } },
  serve: { success: 'test/server-api.test.ts (runs until stopped)', failure: { args: () => ['serve', '--host', '0.0.0.0'] } },
  history: { success: { args: () => ['history'] }, failure: { args: () => ['history', '--since', 'whenever'] } },
  worker: { success: 'test/fleet-workers.test.ts (needs Postgres)', failure: { args: () => ['worker'] } },
  doctor: { success: { args: () => ['doctor'], env: { PATH: process.env.PATH ?? '' } }, failure: { args: () => ['doctor'], cwd: () => join(root, 'out', 'missing') } },
};

describe('--json: one envelope for every command', () => {
  it('the table names every registered command', () => {
    expect(Object.keys(CASES).sort()).toEqual(commands.map((definition) => definition.name.split(' ')[0]!).sort());
  });

  const cases = Object.entries(CASES).flatMap(([word, { success, failure }]) => [
    ...(typeof success === 'string' ? [] : [{ word, expectOk: true, ...success }]),
    { word, expectOk: false, ...failure },
  ]);
  it.each(cases)('$word (ok: $expectOk)', async ({ word, expectOk, args, cwd, env }) => {
    const argv = [...args(), '--json'];
    const { code, stdout } = await cli(cwd ? cwd() : root, argv, env);
    const envelope = EnvelopeSchema.parse(JSON.parse(stdout));
    expect(envelope.ok, stdout).toBe(expectOk);
    expect(envelope.ok).toBe(code === 0);
    expect(envelope.command.split(' ')[0]).toBe(word);
    if (envelope.ok) expect(envelope.data).not.toBeNull();
    else expect(envelope.error.message.length).toBeGreaterThan(0);
    // No command keeps the old `ok` inside its result (doctor's is its verdict on the machine, not the envelope's).
    if (envelope.data && typeof envelope.data === 'object' && word !== 'doctor') expect(envelope.data).not.toHaveProperty('ok');
  }, 60_000);
});
