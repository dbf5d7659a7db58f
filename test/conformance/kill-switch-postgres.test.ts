/**
 * The fleet store's kill switch against the KillSwitch conformance suite on a
 * real private Postgres: pauses and halts are rows every switch over the same
 * database and scope sees, while the repository's own forms (the root
 * `loop-pause-all` file, the env variable) still stop a loop on Postgres too.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileKillSwitch } from '../../src/adapters/kill-switch/kill-switch.js';
import { PostgresDatabase, PostgresKillSwitch } from '../../src/adapters/postgres/index.js';
import { describeKillSwitchConformance } from '../../src/testing/conformance/index.js';
import { startPgCluster, type PgCluster } from '../pg-cluster.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster();
});
afterAll(async () => cluster?.stop());

async function fleet(env: Record<string, string | undefined> = {}) {
  const url = await cluster.createDatabase('kill');
  const root = await mkdtemp(join(tmpdir(), 'kill-switch-pg-'));
  const opened: PostgresDatabase[] = [];
  // Each switch opens its own pool: a separate connection, as another process would.
  const database = async () => {
    const next = await PostgresDatabase.open({ url });
    opened.push(next);
    return next;
  };
  const databases = [await database(), await database()];
  let turn = 0;
  const open = (loop: string | null, scope = 'github.com/acme/demo') =>
    new PostgresKillSwitch({
      database: databases[turn++ % databases.length]!,
      scope,
      repository: new FileKillSwitch({ root, env }),
      now: () => 1_795_420_800_000,
      ...(loop ? { patternId: loop } : {}),
    });
  const cleanup = async () => {
    await Promise.all(opened.map((next) => next.close()));
    await rm(root, { recursive: true, force: true });
  };
  return { root, open, cleanup };
}

describeKillSwitchConformance('PostgresKillSwitch', async () => {
  const { open, cleanup } = await fleet();
  const killSwitch = open('daily-triage');
  return {
    killSwitch,
    pause: () => open(null).pause({ by: 'conformance' }),
    resume: () => open(null).resume({}),
    cleanup,
    halts: { reopen: () => open('daily-triage'), clearHalt: async () => void (await open('daily-triage').clearHalt({ by: 'conformance', at: 1_795_500_000_000 })) },
    store: { open: (loop) => open(loop) },
  };
});

describeKillSwitchConformance('PostgresKillSwitch (the repository file loop-pause-all still applies)', async () => {
  const { root, open, cleanup } = await fleet();
  return {
    killSwitch: open('daily-triage'),
    pause: () => writeFile(join(root, 'loop-pause-all'), ''),
    resume: () => rm(join(root, 'loop-pause-all')),
    cleanup,
  };
});

describe('PostgresKillSwitch scopes', () => {
  it('a pause and a halt in one scope (repository) stop nothing in another; the env variable stops both', async () => {
    const { open, cleanup } = await fleet();
    try {
      await open(null, 'github.com/acme/demo').pause({ by: 'ana' });
      await open('daily-triage', 'github.com/acme/demo').halt({ patternId: 'daily-triage', reason: 'budget-overrun', message: 'over', tickId: 't1', startedAt: 1, at: 2, tokens: 9 });
      expect((await open('daily-triage', 'github.com/acme/demo').check()).paused).toBe(true);
      expect(await open('daily-triage', 'github.com/acme/other').check()).toEqual({ paused: false });
    } finally {
      await cleanup();
    }
    const flagged = await fleet({ LOOP_RUNTIME_PAUSE: '1' });
    try {
      expect(await flagged.open('daily-triage', 'github.com/acme/other').check()).toEqual({ paused: true, source: 'env LOOP_RUNTIME_PAUSE' });
    } finally {
      await flagged.cleanup();
    }
  });
});
