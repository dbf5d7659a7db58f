/**
 * Stranded deliveries on the fleet store: a project whose delivery ledger is
 * in Postgres (`store:` in LOOP.md) records a failed push there, and the
 * loop's next tick — `run` here; a fleet worker's tick goes through the same
 * tick session — retries it from that ledger first, with no model call for
 * it. (It used to read `.loop-runtime/deliveries.json`, which such a project
 * never writes, so the commit stayed stranded.)
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { addBareRemote, makeRepo, sh } from './git-fixtures.js';
import { usePgCluster } from './fleet-processes.js';

const cluster = usePgCluster();

async function cli(cwd: string, argv: string[], env: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { cwd, env: { ...process.env, NO_COLOR: '1', CI: '', GITHUB_TOKEN: undefined, GH_TOKEN: undefined, ...env }, isTTY: false, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

// A fixed scope: the test points origin elsewhere and back, and the scope must not follow it.
const LOOP_MD = `---
loop-runtime:
  backend: mock
  store:
    url: env:FLEET_DB
    scope: acme/stranded
  verify:
    - "true"
  delivery:
    mode: push
  loops:
    daily-triage: {}
---
# Loops
`;

describe('a stranded delivery on the fleet store', () => {
  it("is recorded in Postgres and pushed by the loop's next tick first", async () => {
    const env = { FLEET_DB: await cluster.createDatabase('stranded'), LOOP_RUNTIME_DATABASE_URL: undefined };
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD });
    const bare = await addBareRemote(root);
    sh(root, ['remote', 'set-url', 'origin', join(root, '..', 'no-such-remote.git')]);
    const failed = JSON.parse((await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'], env)).stdout).ticks[0];
    expect(failed.stranded).toBeDefined();
    expect(existsSync(join(root, '.loop-runtime', 'deliveries.json'))).toBe(false);

    sh(root, ['remote', 'set-url', 'origin', bare]);
    const next = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'], env);
    const summary = JSON.parse(next.stdout);
    expect(summary.notes, next.stderr).toContain(`delivery retry of mock#1: pushed (${failed.stranded.commit.branch})`);
    expect(sh(bare, ['rev-parse', failed.stranded.commit.branch]).trim()).toBe(failed.stranded.commit.sha);
    expect(summary.ticks[0].steps.map((step: { phase: string }) => step.phase)).not.toContain('implement');
  }, 60_000);
});
