#!/usr/bin/env node
/**
 * One fleet worker process for scripts/bench-fleet.js (built modules only):
 *   bench-fleet-worker.js <url> <executorId> <run|hang> <log> [<loops to enqueue, 3 slots each>]
 * Serves ticks of daily-triage at L2 with the mock backend, memory workspace
 * and state, and the fleet stores in Postgres. `hang` never finishes an
 * implement call (the bench kills the process there). Appends
 * `start <role> <executorId>` to <log> before each backend call. Prints `ready`.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (path) => join(root, 'dist', path);
const [url, executorId, mode, log, enqueueLoops] = process.argv.slice(2);
const { BudgetBreaker, buildPlan, loadRegistry } = await import(dist('src/index.js'));
const { createMemoryPorts } = await import(dist('src/testing/index.js'));
const { PostgresAttemptLedger, PostgresBudgetLedger, PostgresDatabase, PostgresRunHistory } = await import(dist('src/adapters/postgres/index.js'));
const { FleetWorker } = await import(dist('src/fleet/index.js'));
const { systemClock } = await import(dist('src/adapters/clock/system-clock.js'));

const pattern = loadRegistry(readFileSync(join(root, 'registry.yaml'), 'utf8')).value.patterns.find((entry) => entry.id === 'daily-triage');
const plan = buildPlan(pattern, { level: 'L2', overrides: { dailyTokenCap: 1_000_000_000, verify: ['npm test'] } });
const database = await PostgresDatabase.open({ url, maxConnections: 8 });
const worker = await FleetWorker.start({
  databaseUrl: url,
  executorId,
  recoveryIntervalMs: 200,
  onSweep: (recovered) => process.env.DEBUG_FLEET && process.stderr.write(`${executorId} sweep [${recovered.join(',')}]\n`),
  async wire(input) {
    const memory = createMemoryPorts({ plan, backend: { scenarios: ['act-accept'], recordCalls: false }, commands: {} });
    const inner = memory.backend;
    const backend = {
      specificationVersion: inner.specificationVersion,
      name: inner.name,
      async run(request) {
        appendFileSync(log, `start ${request.role} ${executorId}\n`);
        if (mode === 'hang' && request.role === 'implement') return new Promise(() => undefined);
        return inner.run(request);
      },
    };
    const budgetLedger = new PostgresBudgetLedger({ database, scope: input.scope });
    return {
      plan,
      ports: { ...memory, backend, budget: new BudgetBreaker(plan.dailyTokenCap, { ledger: budgetLedger }), attempts: new PostgresAttemptLedger({ database, scope: input.scope }) },
      budgetLedger,
      clock: systemClock,
      history: new PostgresRunHistory({ database, scope: input.scope }),
    };
  },
});
process.stdout.write('ready\n');
if (enqueueLoops) {
  process.stdout.write('enqueuing\n');
  for (let slot = 0; slot < 3; slot += 1) {
    for (let loop = 0; loop < Number(enqueueLoops); loop += 1) await worker.enqueueTick({ scope: `bench/repo-${loop}`, patternId: 'daily-triage', slot: `2026-11-2${slot}T08:00Z`, startedAt: Date.now() });
  }
  process.stdout.write('enqueued\n');
}
process.on('SIGTERM', () => void worker.stop().then(() => database.close()).then(() => process.exit(0)));
