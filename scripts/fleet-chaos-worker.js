#!/usr/bin/env node
/**
 * One fleet worker that kills itself (SIGKILL, a real kill -9) at a chosen
 * point of its ticks, for test/fleet-chaos.test.ts and `npm run bench`
 * (built modules only):
 *   fleet-chaos-worker.js <url> <executorId> <log> <killAt> <loops> <slots>
 * Serves daily-triage at L2 (triage, implement, check) with the mock backend,
 * memory workspace and state, and the fleet stores in Postgres (budget,
 * attempts, run history, the loop lease), one tick at a time. A "point" is
 * every port call a tick makes (each one a durable step) and the inside of
 * every model call: at point number <killAt> (0: never) the process appends
 * `kill <executorId> <n> <point> <workflow id>` to <log> and kills itself —
 * inside the step, before its answer is checkpointed, so every step it
 * completed is checkpointed and the one it was in is not. Model calls append
 * `start <role> <workflow id> <executorId>` and, once answered,
 * `done <role> <workflow id> <executorId>`. On start it enqueues <loops> loops
 * (`chaos/loop-<i>`) × <slots> slots (every worker does: the same ticks), then
 * prints `ready`.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DBOS } from '@dbos-inc/dbos-sdk';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (path) => join(root, 'dist', path);
const [url, executorId, log, killAtText, loopsText, slotsText] = process.argv.slice(2);
const killAt = Number(killAtText);
const { BudgetBreaker, buildPlan, loadRegistry } = await import(dist('src/index.js'));
const { createMemoryPorts } = await import(dist('src/testing/index.js'));
const { PostgresAttemptLedger, PostgresBudgetLedger, PostgresDatabase, PostgresRunHistory } = await import(dist('src/adapters/postgres/index.js'));
const { FleetWorker, postgresTickLease, tickWorkflowId } = await import(dist('src/fleet/index.js'));
const { systemClock } = await import(dist('src/adapters/clock/system-clock.js'));

const pattern = loadRegistry(readFileSync(join(root, 'registry.yaml'), 'utf8')).value.patterns.find((entry) => entry.id === 'daily-triage');
const plan = buildPlan(pattern, { level: 'L2', overrides: { dailyTokenCap: 1_000_000_000, verify: ['npm test'] } });
const database = await PostgresDatabase.open({ url, maxConnections: 4 });

let points = 0;
function point(name) {
  points += 1;
  if (points !== killAt) return;
  appendFileSync(log, `kill ${executorId} ${points} ${name} ${DBOS.workflowID ?? '-'}\n`);
  process.kill(process.pid, 'SIGKILL');
}

/** Every method call of `port` is a point, named `<name>.<method>`. */
function counted(port, name) {
  return new Proxy(port, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args) => {
        point(`${name}.${property}`);
        return Reflect.apply(value, target, args);
      };
    },
  });
}

const worker = await FleetWorker.start({
  databaseUrl: url,
  executorId,
  // A sweep a second (a fleet's default is 5 s) hands a killed worker's tick back within a second or two; every
  // 200 ms swept five times as often for the same recoveries (-8% of the chaos test's CPU in a paired run, same wall).
  recoveryIntervalMs: 1000,
  ticksPerWorker: 1,
  onSweep: (recovered) => recovered.length > 0 && process.stdout.write(`recovered ${recovered.join(',')}\n`),
  async wire(input) {
    const memory = createMemoryPorts({ plan, clock: systemClock, backend: { scenarios: ['act-accept'], recordCalls: false }, commands: {} });
    const inner = memory.backend;
    const backend = {
      specificationVersion: inner.specificationVersion,
      name: inner.name,
      async run(request) {
        const workflowId = DBOS.workflowID;
        appendFileSync(log, `start ${request.role} ${workflowId} ${executorId}\n`);
        point(`backend.run(${request.role})`);
        const result = await inner.run(request);
        appendFileSync(log, `done ${request.role} ${workflowId} ${executorId}\n`);
        return result;
      },
    };
    const budgetLedger = counted(new PostgresBudgetLedger({ database, scope: input.scope }), 'budget');
    const history = new PostgresRunHistory({ database, scope: input.scope });
    const lease = postgresTickLease({ database, clock: systemClock, scope: input.scope, plan, holder: `fleet worker ${executorId}`, tickId: `tick-${tickWorkflowId(input)}` });
    return {
      plan,
      ports: {
        ...memory,
        backend,
        state: counted(memory.state, 'state'),
        killSwitch: counted(memory.killSwitch, 'killSwitch'),
        budget: new BudgetBreaker(plan.dailyTokenCap, { ledger: budgetLedger }),
        attempts: counted(new PostgresAttemptLedger({ database, scope: input.scope }), 'attempts'),
      },
      budgetLedger,
      clock: systemClock,
      history: { record: (result) => (point('history.record'), history.record(result)) },
      loopLease: { refreshEveryMs: lease.refreshEveryMs, take: (token) => (point('loopLease.take'), lease.take(token)) },
    };
  },
});
for (let slot = 0; slot < Number(slotsText); slot += 1) {
  for (let loop = 0; loop < Number(loopsText); loop += 1) {
    await worker.enqueueTick({ scope: `chaos/loop-${loop}`, patternId: 'daily-triage', slot: `2026-11-2${slot}T08:00Z`, startedAt: systemClock.now() });
  }
}
process.stdout.write('ready\n');
process.on('SIGTERM', () => void worker.stop().then(() => database.close()).then(() => process.exit(0)));
