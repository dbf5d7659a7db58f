/**
 * A fleet worker process for the fleet tests, bundled by test/bundled-child.ts and run with node:
 *   fleet-worker-child.ts <url> <executorId> <backendLog> <run|hang-in-implement|wait-for-gate> <clock-start> [enqueue-slot]
 * <clock-start> is the ISO time this worker's clock starts at: a worker started
 * later must read a later time than every step an earlier worker recorded.
 * Serves ticks of `daily-triage` (mock backend, memory workspace, fleet
 * stores in Postgres). The backend appends `start <role>` / `done <role>` to
 * <backendLog>; with hang-in-implement it never finishes an implement call
 * (the test kills the process there); with wait-for-gate every call, once
 * started, waits until the file <backendLog>.gate exists (a barrier the test
 * opens). Each tick holds the loop's Postgres lease (holder `fleet worker
 * <executorId>`), as `loop-runtime worker` does. Prints `ready` once serving,
 * then `sweep <dead executors recovered>` after every recovery sweep, and
 * `result <json>` when the tick it enqueued ends.
 */
import { appendFileSync, existsSync } from 'node:fs';
import { MockBackend } from '../backends/mock/index.js';
import { PostgresAttemptLedger, PostgresBudgetLedger, PostgresDatabase, PostgresRunHistory } from '../src/adapters/postgres/index.js';
import { BudgetBreaker } from '../src/core/budget/budget-breaker.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import type { AgentBackend, AgentRequest, AgentResult } from '../src/core/ports/index.js';
import { FleetWorker, postgresTickLease, tickWorkflowId } from '../src/fleet/index.js';
import { createMemoryPorts } from '../src/testing/create-memory-ports.js';
import { FixedClock } from '../src/testing/fixed-clock.js';
import { dailyTriagePattern } from './fixtures/patterns.js';

const [url, executorId, backendLog, mode, clockStart, enqueueSlot] = process.argv.slice(2);
if (!url || !executorId || !backendLog || !clockStart || (mode !== 'run' && mode !== 'hang-in-implement' && mode !== 'wait-for-gate')) {
  process.stderr.write('usage: fleet-worker-child.ts <url> <executorId> <backendLog> <run|hang-in-implement|wait-for-gate> <clock-start> [enqueue-slot]\n');
  process.exit(2);
}

class CountingBackend implements AgentBackend {
  readonly specificationVersion = 'agent-backend-v2' as const;
  readonly name = 'counting-mock';
  constructor(private readonly inner: MockBackend) {}
  async run(request: AgentRequest): Promise<AgentResult> {
    appendFileSync(backendLog!, `start ${request.role} ${executorId}\n`);
    if (mode === 'hang-in-implement' && request.role === 'implement') return new Promise<AgentResult>(() => undefined);
    // A barrier, not a delay: the call stays open until the test creates the gate file.
    while (mode === 'wait-for-gate' && !existsSync(`${backendLog!}.gate`)) await new Promise((resolve) => setTimeout(resolve, 20));
    const result = await this.inner.run(request);
    appendFileSync(backendLog!, `done ${request.role} ${executorId}\n`);
    return result;
  }
}

const database = await PostgresDatabase.open({ url, maxConnections: 4 });
const clock = new FixedClock(clockStart, 1000);
const plan = buildPlan(dailyTriagePattern, { level: 'L2', overrides: { verify: ['npm test'] } });
const worker = await FleetWorker.start({
  databaseUrl: url,
  executorId,
  recoveryIntervalMs: 200,
  onSweep: (recovered) => process.stdout.write(`sweep ${recovered.join(',')}\n`),
  async wire(input) {
    const memory = createMemoryPorts({ plan, clock, backend: { scenarios: ['act-accept'] }, commands: {} });
    const budgetLedger = new PostgresBudgetLedger({ database, scope: input.scope });
    return {
      plan,
      ports: { ...memory, backend: new CountingBackend(memory.backend), budget: new BudgetBreaker(plan.dailyTokenCap, { ledger: budgetLedger }), attempts: new PostgresAttemptLedger({ database, scope: input.scope }) },
      budgetLedger,
      clock,
      history: new PostgresRunHistory({ database, scope: input.scope }),
      loopLease: postgresTickLease({ database, clock, scope: input.scope, plan, holder: `fleet worker ${executorId}`, tickId: `tick-${tickWorkflowId(input)}` }),
    };
  },
});
const enqueued = enqueueSlot ? await worker.enqueueTick({ scope: 'acme/demo', patternId: 'daily-triage', slot: enqueueSlot, startedAt: clock.now() }) : null;
process.stdout.write('ready\n');
if (enqueued) void worker.result(enqueued).then((result) => process.stdout.write(`result ${JSON.stringify(result)}\n`), (error: unknown) => process.stdout.write(`result-error ${String(error)}\n`));
process.on('SIGTERM', () => void worker.stop().then(() => database.close()).then(() => process.exit(0)));
