/**
 * Outcomes are shared state, as halts and pauses are (test/shared-halts-matrix.test.ts): through the built CLI in
 * real processes, two checkouts of one repository. With one Postgres store, checkout A's tick proposes item X (a kept
 * local branch: no delivery-ledger record, so only the outcome lines know it is open) and checkout B's next tick does
 * not propose X again ("not proposed again while an earlier proposal is open"); the proposal is one row, and B's
 * tick-start sync, which cannot see A's branch, does not close it. The twin:
 * with the file store each checkout has its own outcomes file, so B proposes X too. Needs `dist/` and PostgreSQL 15.
 */
import { cliJson } from './cli-json.js';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git, makeLoopRepo, runCli } from './e2e-fixtures.js';
import { queryRows, usePgCluster } from './fleet-processes.js';
import { addBareRemote, cleanupTempDirs, sh, tempDir } from './git-fixtures.js';

afterAll(cleanupTempDirs);
const cluster = usePgCluster();

/** A real (non-mock) backend plugin: triage acts on issue#7, the implementer appends a line, the checker approves. */
const FIXER_BACKEND = `
const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
const item = { key: 'issue#7', title: 'Tidy the example module', paths: ['src/example.ts'] };
export function createBackend() {
  return {
    specificationVersion: 'agent-backend-v2',
    name: 'fixer-probe',
    async run(request) {
      if (request.role === 'triage') return { ok: true, role: 'triage', usage, output: { decision: 'act', summary: 'one fix', findings: [], items: [item] } };
      if (request.role === 'implement') {
        const before = (await request.files.read('src/example.ts')) ?? '';
        await request.files.write('src/example.ts', before + '// tidied in ' + request.tickId + '\\n');
        return { ok: true, role: 'implement', usage, output: { summary: 'tidied src/example.ts', completed: true } };
      }
      return { ok: true, role: 'check', usage, output: { verdict: 'APPROVE', reasons: ['small and scoped'] } };
    },
  };
}
`;

interface Tick {
  kind: string;
  itemKey?: string;
  steps?: Array<{ phase: string; note: string }>;
}

async function twoCheckouts(): Promise<{ a: string; b: string }> {
  const a = await makeLoopRepo({ 'src/example.ts': 'export const answer = 42;\n' }, { verify: ['true'], delivery: { mode: 'local' } });
  await writeFile(join(a, 'fixer-backend.mjs'), FIXER_BACKEND);
  git(a, 'add', 'fixer-backend.mjs');
  git(a, 'commit', '--quiet', '-m', 'backend plugin');
  await addBareRemote(a);
  const b = join(await tempDir('loop-clone-'), 'clone');
  sh(a, ['clone', '--quiet', sh(a, ['remote', 'get-url', 'origin']).trim(), b]);
  return { a, b };
}

const tick = async (cwd: string, env: Record<string, string | undefined>): Promise<Tick> => {
  const result = await runCli(cwd, ['run', 'daily-triage', '--level', 'L2', '--backend', './fixer-backend.mjs', '--json'], env);
  expect(result.code, result.stderr + result.stdout).toBe(0);
  return (cliJson(result.stdout) as { ticks: Tick[] }).ticks[0]!;
};
const OPEN_NOTE = 'not proposed again while an earlier proposal is open: issue#7';

describe('open proposals across two checkouts of one repository', () => {
  it("shared Postgres store: B's tick does not propose the item A's kept local proposal holds; the proposal is one row", async () => {
    const { a, b } = await twoCheckouts();
    const env = { LOOP_RUNTIME_DATABASE_URL: await cluster.createDatabase('outcomes') };
    const first = await tick(a, env);
    expect(first).toMatchObject({ kind: 'proposed' });
    const rows = await queryRows<{ item: string; backend: string; tick_id: string | null }>(env.LOOP_RUNTIME_DATABASE_URL, `SELECT line->>'itemKey' AS item, line->>'backend' AS backend, tick_id FROM loop_runtime_outcomes WHERE line->>'type' = 'proposal'`);
    expect(rows).toEqual([{ item: 'issue#7', backend: './fixer-backend.mjs', tick_id: expect.any(String) }]);
    // The outcomes file is not where the fleet keeps them.
    await expect(readFile(join(a, '.loop-runtime', 'outcomes.jsonl'), 'utf8')).rejects.toThrow(/ENOENT/);

    const second = await tick(b, env);
    expect(second.kind).not.toBe('proposed');
    expect(JSON.stringify(second)).toContain(OPEN_NOTE);
    expect(await queryRows(env.LOOP_RUNTIME_DATABASE_URL, `SELECT 1 FROM loop_runtime_outcomes WHERE line->>'type' = 'proposal'`)).toHaveLength(1);
    // B's tick-start sync cannot see A's local branch and must not close A's proposal for everyone.
    expect(await queryRows(env.LOOP_RUNTIME_DATABASE_URL, `SELECT line->>'state' AS state FROM loop_runtime_outcomes WHERE line->>'type' = 'observation' AND line->>'state' <> 'open'`)).toEqual([]);
  }, 180_000);

  it('the file-store twin: each checkout has its own outcomes file, so B proposes the item too', async () => {
    const { a, b } = await twoCheckouts();
    const env = { LOOP_RUNTIME_DATABASE_URL: undefined };
    expect(await tick(a, env)).toMatchObject({ kind: 'proposed' });
    const second = await tick(b, env);
    expect(second).toMatchObject({ kind: 'proposed' });
    expect(JSON.stringify(second)).not.toContain(OPEN_NOTE);
    for (const checkout of [a, b]) expect(await readFile(join(checkout, '.loop-runtime', 'outcomes.jsonl'), 'utf8')).toContain('"itemKey":"issue#7"');
  }, 180_000);
});
