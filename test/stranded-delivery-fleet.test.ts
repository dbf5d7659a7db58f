/**
 * Stranded deliveries on the fleet store: a project whose delivery ledger is
 * in Postgres (`store:` in LOOP.md) records a failed push there, and the
 * loop's next tick — `run` here; a fleet worker's tick goes through the same
 * tick session — retries it from that ledger first, with no model call for
 * it. (It used to read `.loop-runtime/deliveries.json`, which such a project
 * never writes, so the commit stayed stranded.) `inbox`, `deliver` and
 * `reject` read the same ledger, and a tick does not pick an item whose
 * proposal the shared ledger holds open.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { addBareRemote, makeRepo, sh } from './git-fixtures.js';
import { usePgCluster } from './fleet-processes.js';
import { cliJson } from './cli-json.js';

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
    const failed = cliJson((await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'], env)).stdout).ticks[0];
    expect(failed.stranded).toBeDefined();
    expect(existsSync(join(root, '.loop-runtime', 'deliveries.json'))).toBe(false);

    sh(root, ['remote', 'set-url', 'origin', bare]);
    const next = await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'], env);
    const summary = cliJson(next.stdout);
    expect(summary.notes, next.stderr).toContain(`delivery retry of mock#1: pushed (${failed.stranded.commit.branch})`);
    expect(sh(bare, ['rev-parse', failed.stranded.commit.branch]).trim()).toBe(failed.stranded.commit.sha);
    expect(summary.ticks[0].steps.map((step: { phase: string }) => step.phase)).not.toContain('implement');
  });

  it('is listed by inbox, kept from the next triage, delivered by `deliver <id>` and dropped by `reject <id>`: all from the Postgres ledger', async () => {
    const env = { FLEET_DB: await cluster.createDatabase('inbox'), LOOP_RUNTIME_DATABASE_URL: undefined };
    const root = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD });
    const bare = await addBareRemote(root);
    sh(root, ['remote', 'set-url', 'origin', join(root, '..', 'no-such-remote.git')]);
    const failed = cliJson((await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'], env)).stdout).ticks[0];
    expect(failed.stranded).toBeDefined();

    const inbox = cliJson((await cli(root, ['inbox', '--json'], env)).stdout).items as Array<{ kind: string; id: string; itemKey: string; branch: string }>;
    expect(inbox).toEqual([expect.objectContaining({ kind: 'delivery-failed', itemKey: 'mock#1', branch: failed.stranded.commit.branch })]);
    const status = cliJson((await cli(root, ['status', '--json'], env)).stdout) as { loops: Array<{ deliveryFailed: Array<{ id: string }> }> };
    expect(status.loops[0]!.deliveryFailed).toEqual([expect.objectContaining({ id: inbox[0]!.id })]);

    // Still unreachable: the retry fails again, and the item, whose proposal is open in the shared ledger, is not worked on again.
    const again = cliJson((await cli(root, ['run', 'daily-triage', '--level', 'L2', '--json'], env)).stdout);
    expect(again.ticks[0].steps.map((step: { phase: string }) => step.phase)).not.toContain('implement');

    sh(root, ['remote', 'set-url', 'origin', bare]);
    const delivered = await cli(root, ['deliver', inbox[0]!.id, '--json'], env);
    expect(delivered.code, delivered.stderr + delivered.stdout).toBe(0);
    expect(sh(bare, ['rev-parse', failed.stranded.commit.branch]).trim()).toBe(failed.stranded.commit.sha);
    expect(cliJson((await cli(root, ['inbox', '--json'], env)).stdout).items).toEqual([]);

    // A second stranded change, dropped by a human: its record leaves the shared ledger.
    const other = await makeRepo({ 'src/example.ts': 'export const answer = 42;\n', 'LOOP.md': LOOP_MD.replace('acme/stranded', 'acme/rejected') });
    sh(other, ['remote', 'add', 'origin', join(other, '..', 'no-such-remote.git')]);
    const second = cliJson((await cli(other, ['run', 'daily-triage', '--level', 'L2', '--json'], env)).stdout).ticks[0];
    expect(second.stranded).toBeDefined();
    const [waiting] = cliJson((await cli(other, ['inbox', '--json'], env)).stdout).items as Array<{ id: string }>;
    const rejected = await cli(other, ['reject', waiting!.id, '--json'], env);
    expect(rejected.code, rejected.stderr + rejected.stdout).toBe(0);
    expect(cliJson((await cli(other, ['inbox', '--json'], env)).stdout).items).toEqual([]);
    expect(existsSync(join(other, '.loop-runtime', 'deliveries.json'))).toBe(false);
  });
});
