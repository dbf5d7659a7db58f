/**
 * The one wiring path. Every entry point — each CLI command, the library,
 * and anything later (a server) — opens a `Runtime` for a repository and
 * makes one call on it. The runtime builds every adapter through
 * `create-runtime.ts` and `wiring.ts`, so redaction, leases, the gate and the
 * kill switch apply the same way whoever asks.
 *
 * @example
 * ```ts
 * const opened = await openRuntime({ cwd: '/repo', env: process.env, clock: systemClock });
 * if (!opened.ok) throw new Error(opened.issues.map(formatDiagnostic).join('\n'));
 * const summary = await opened.runtime.run('daily-triage', { dryRun: true });
 * ```
 */
import type { Diagnostic } from '../core/config/diagnostics.js';
// Static, not `import()`: every runtime loads the project first; it loads beside this module instead of after it.
import { loadProject, resolvePlan, type LoadedProject } from '../project/load-project.js';
// Static too: the project loader already imports this module, and an `import()` of it made it an entry point of its
// own, split off the project loader's chunk — one more file for `list`, `plan`, `validate` and `status`.
import { notConfiguredIssue } from '../project/loop-enrolment.js';
// Static: every method but the `NOT_REDACTED` ones redacts its answer, and the rule set itself loads on first use
// (secretlint-rules.ts); an `import()` here loaded a facade file for each of them.
import { prepareRedaction, redactorFor, redactValues } from '../adapters/redaction/redaction.js';
import type { OpenRuntimeOptions, RunRequest, Runtime } from './runtime-contract.js';
// Static too: the store choice is ~3 KB and most commands that open a runtime open the stores; an `import()` cost
// each of them a facade file that re-imports its chunks. The stores themselves still open on first use.
import { openProjectStores, type ProjectStores } from './stores/project-stores.js';

export type { OpenRuntimeOptions, Planned, RunRequest, Runtime } from './runtime-contract.js';

/** Loads the repository's configuration and returns the runtime over it, or the configuration's issues. */
export async function openRuntime(options: OpenRuntimeOptions): Promise<{ ok: true; runtime: Runtime } | { ok: false; issues: Diagnostic[] }> {
  const loaded = await loadProject(options.cwd);
  if (!loaded.ok) return { ok: false, issues: loaded.issues };
  const project = loaded.project;
  const tickOptions = async (request: RunRequest) => ({
    stores: request.dryRun ? await stores() : await writableStores(),
    dryRun: Boolean(request.dryRun),
    env: options.env,
    clock: options.clock,
    allowUnsandboxed: Boolean(request.allowUnsandboxed),
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.backend ? { backend: options.backend } : {}),
    ...(request.record ? { record: request.record } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
    ...(request.eventItem ? { eventItem: request.eventItem } : {}),
  });
  const backendOverride = (request: RunRequest) => (request.dryRun ? 'mock' : request.backendName);
  const decisions = { clock: options.clock, env: options.env };
  // Outcome lines go through the project's store (files or the fleet's Postgres), like every other shared state.
  // Spend per tick from the same store: `metrics` and `promote` price what the ticks journalled there.
  const withOutcomes = async (writable = true) => {
    const opened = writable ? await writableStores() : await stores();
    return { ...decisions, outcomes: opened.outcomes(), spendByTick: (query: { tickIds: readonly string[] }) => opened.spendByTick(query) };
  };
  // Opened on first use: commands that read only configuration never touch the store (nor load its files' modules).
  let opening: Promise<ProjectStores> | null = null;
  const stores = () => (opening ??= openProjectStores(project, options));
  const withStores = async () => ({ clock: options.clock, env: options.env, stores: await stores() });
  // What a command writes under the checkout (.loop-runtime/: leases, journals, the console's token) stays out of the
  // user's commits, through .git/info/exclude. A dry run writes nothing there, so it excludes nothing either.
  let excluding: Promise<void> | null = null;
  const excludeOnce = () => (excluding ??= import('../adapters/git/exclude-runtime-files.js').then(({ excludeRuntimeFiles }) => excludeRuntimeFiles(project.root)));
  const writableStores = async () => {
    await excludeOnce();
    return stores();
  };

  const runtime: Runtime = {
    project,
    async run(id, request = {}) {
      if (request.record) (await import('../replay/record-tick.js')).checkRecordable(request.ticks ?? 1, false);
      const unconfigured = request.dryRun ? null : await refuseUnconfigured(project, id);
      if (unconfigured) return unconfigured;
      const backend = backendOverride(request);
      const current = request.dryRun ? project : await checkOutcomesBeforeTick(project, [id]);
      const resolved = await resolvePlan(current, id, { ...(request.level ? { level: request.level } : {}), ...(backend ? { backend } : {}) });
      if (!resolved.ok) return resolved;
      const { tickUnderLease, REHEARSAL_PRICE_SOURCE } = await import('../use-cases/run.js');
      const summary = await tickUnderLease(current, resolved.plan, request.ticks ?? 1, await tickOptions(request));
      // A rehearsal (a dry run, or the mock standing in for the loop's agent) spends nothing the loop's cap counts.
      const configured = summary.backend === 'mock' && backend === 'mock' ? await resolvePlan(current, id) : null;
      if (request.dryRun || (configured?.ok && configured.plan.backend.name !== 'mock')) {
        summary.rehearsal = true;
        if (summary.priceSource !== undefined) summary.priceSource = REHEARSAL_PRICE_SOURCE;
      }
      if (request.dryRun && request.backendName && request.backendName !== 'mock') {
        summary.notes.unshift(`dry-run: rehearsed with the mock backend; --backend ${request.backendName} applies to runs without --dry-run.`);
      }
      return { ok: true, value: summary, warnings: resolved.warnings };
    },
    async runDue(request = {}) {
      if (request.record) (await import('../replay/record-tick.js')).checkRecordable(1, true);
      const unconfigured = request.dryRun || !request.id ? null : await refuseUnconfigured(project, request.id);
      if (unconfigured) return unconfigured;
      const backend = backendOverride(request);
      const { tickDueLoops } = await import('../use-cases/run-due.js');
      const current = request.dryRun ? project : await checkOutcomesBeforeTick(project, request.id ? [request.id] : project.configuredLoops);
      const due = await tickDueLoops(
        current,
        { ...(request.id ? { id: request.id } : {}), ...(request.level ? { level: request.level } : {}), ...(backend ? { backendName: backend } : {}) },
        await tickOptions(request),
      );
      return due.ok ? { ok: true, value: due.summary, warnings: due.issues } : due;
    },
    async inbox() {
      const [{ listInbox }, { fleetInbox }] = await Promise.all([import('../use-cases/approval.js'), import('../use-cases/fleet-decision.js')]);
      const local = await listInbox(project.root, options.clock.now(), project.settings?.worktreesDir ?? null, (await stores()).deliveryLedger());
      // A fleet's escalated changes wait on their workers' disks: listed from the fleet's approval waits.
      const fleet = await fleetInbox(project, options.env, options.clock.now());
      return [...local, ...fleet.filter((item) => !local.some((held) => held.id === item.id))];
    },
    async approve(idOrItemKey, approval = {}) {
      // A change a fleet tick escalated is decided by the worker waiting for it (one decision acts, once).
      const fleet = await (await import('../use-cases/fleet-decision.js')).decideInFleet(project, options.env, idOrItemKey, { decision: 'approve', yes: Boolean(approval.yes) });
      if (fleet) return fleet;
      const { approveChange } = await import('../use-cases/approval.js');
      const result = await approveChange(project, idOrItemKey, { ...(await withOutcomes()), deliveryLedger: (await writableStores()).deliveryLedger(), yes: Boolean(approval.yes) });
      if (result.status === 'applied') {
        // A human's approval delivers a change like a tick does: its fate counts for the loop.
        const resolved = await resolvePlan(project, result.pattern);
        const { recordApproval } = await import('../use-cases/outcomes/record-proposals.js');
        if (resolved.ok) await recordApproval(project.root, resolved.plan, result, options.clock.now(), (await writableStores()).outcomes()).catch(() => undefined);
      }
      return result;
    },
    async reject(idOrItemKey) {
      const fleet = await (await import('../use-cases/fleet-decision.js')).decideInFleet(project, options.env, idOrItemKey, { decision: 'reject', yes: false });
      if (fleet) return fleet;
      const { rejectChange } = await import('../use-cases/approval.js');
      return rejectChange(project, idOrItemKey, { ...(await withOutcomes()), deliveryLedger: (await writableStores()).deliveryLedger() });
    },
    async discard(idOrKey) {
      const { discardKeptChange } = await import('../use-cases/discard-change.js');
      return (await discardKeptChange(project, idOrKey, { ...(await withOutcomes()), deliveryLedger: (await writableStores()).deliveryLedger() })).result;
    },
    async deliver(idOrItemKey) {
      const { retryDelivery } = await import('../use-cases/deliver.js');
      return retryDelivery(project, idOrItemKey, { ...(await withOutcomes()), deliveryLedger: (await writableStores()).deliveryLedger() });
    },
    async status() {
      // Loaded on its call: the CLI's `status` reads through status-root.ts without a runtime, and a tick has no use for it.
      return (await import('../use-cases/status.js')).loopStatus(project, await withStores());
    },
    async outcomesSync(id) {
      const { configuredPlans, outcomesSync } = await import('../use-cases/outcomes/outcomes-facade.js');
      const { plans, issues } = await configuredPlans(project, id);
      if (plans.length === 0 && issues.length > 0) return { ok: false, issues };
      return { ok: true, value: await outcomesSync(project, plans, await withOutcomes()), warnings: issues };
    },
    async metrics(id, request) {
      const { configuredPlans, loopMetrics } = await import('../use-cases/outcomes/outcomes-facade.js');
      const { plans, issues } = await configuredPlans(project, id);
      if (plans.length === 0 && issues.length > 0) return { ok: false, issues };
      return { ok: true, value: await loopMetrics(project, plans, request.since, { ...(await withOutcomes(false)), ...(request.audit === false ? { audit: false } : {}) }), warnings: issues };
    },
    async spendOfTicks(tickIds) {
      return (await stores()).spendByTick({ tickIds });
    },
    async promote(id, request = {}) {
      const { configuredPlans, promoteLoop } = await import('../use-cases/outcomes/outcomes-facade.js');
      const { plans, issues } = await configuredPlans(project, id);
      if (!plans[0]) return { ok: false, issues };
      return { ok: true, value: await promoteLoop(project, plans[0], { ...(await withOutcomes()), yes: Boolean(request.yes) }), warnings: issues };
    },
    async resetMock(id) {
      const resolved = await resolvePlan(project, id);
      if (!resolved.ok) return resolved;
      const { resetMock } = await import('../use-cases/reset-mock.js');
      return { ok: true, value: await resetMock(project.root, resolved.plan, await writableStores(), project.settings?.worktreesDir ?? null), warnings: [] };
    },
    async loops() {
      return (await import('../use-cases/console-queries.js')).consoleLoops(project, await withStores());
    },
    async history(filter = {}) {
      return (await import('../use-cases/console-queries.js')).runHistory(project, filter, options);
    },
    async runs(query = {}) {
      const opened = await stores();
      const fleet = await opened.runs({ ...(query.loop ? { patternId: query.loop } : {}), ...(query.since !== undefined ? { since: query.since } : {}), limit: query.limit ?? 50 });
      const { fromRunHistory, recordPricing, selectRunLogRecords } = await import('../use-cases/run-records.js');
      // A fleet's page of rows is priced from those ticks' spend rows only.
      const pricing = await recordPricing(project, () => opened.spendByTick(fleet ? { tickIds: fleet.map((entry) => entry.tickId) } : {}));
      if (fleet) return fleet.map((entry) => fromRunHistory(entry, pricing));
      return selectRunLogRecords(await (await import('../use-cases/console-queries.js')).runLogOf(project), query, pricing);
    },
    async tick(tickId) {
      return (await import('../use-cases/console-queries.js')).tickDetail(project, tickId, options);
    },
    async spend(days = 30) {
      return (await import('../use-cases/console-queries.js')).spendByDay(project, Math.max(1, Math.min(days, 366)), await withStores());
    },
    async diff(idOrItemKey) {
      return (await import('../use-cases/console-queries.js')).inboxDiff(project, idOrItemKey, options);
    },
    async pause(scope = {}) {
      await excludeOnce();
      const by = scope.by ?? (await import('../use-cases/resume.js')).actor(options.env);
      return (await import('../use-cases/pause.js')).setPause(project, { ...(await withStores()), by, ...(scope.reason ? { reason: scope.reason } : {}) }, true, scope.loop);
    },
    async resume(scope = {}) {
      await excludeOnce();
      return (await import('../use-cases/pause.js')).setPause(project, { ...(await withStores()), by: scope.by ?? 'the console (serve)' }, false, scope.loop);
    },
    async resumeLoop(id, request = {}) {
      const unconfigured = await refuseUnconfigured(project, id);
      if (unconfigured) return unconfigured;
      const resolved = await resolvePlan(project, id);
      if (!resolved.ok) return resolved;
      const { resumeLoop } = await import('../use-cases/resume.js');
      return { ok: true, value: await resumeLoop(resolved.plan, { ...(await withStores()), ...(request.by ? { by: request.by } : {}) }), warnings: resolved.warnings };
    },
    async recentEvents(limit = 200) {
      const { readTickEvents } = await import('../adapters/tick-events/tick-events.js');
      const lines = (await readTickEvents(project.root)).filter((line) => line.type !== 'tick-result');
      return lines.slice(-Math.max(0, limit));
    },
    async events(listener) {
      const { tailTickEvents } = await import('../adapters/tick-events/event-tail.js');
      return tailTickEvents(project.root, listener);
    },
    async replay(file, request = {}) {
      const { replayRecording } = await import('../use-cases/replay.js');
      const replayed = await replayRecording(project, file, { env: options.env, ...request });
      return replayed.ok ? { ...replayed, warnings: [] } : replayed;
    },
    async testRecordings(request = {}) {
      const { testRecordings } = await import('../use-cases/test-recordings.js');
      return testRecordings(project, { env: options.env, ...request });
    },
    async doctor() {
      const [{ runDoctor }, { sandboxRunnerFor }] = await Promise.all([import('../use-cases/doctor.js'), import('./host-adapters.js')]);
      return runDoctor(project, { env: options.env, stores: await stores(), sandboxRunner: sandboxRunnerFor });
    },
  };

  /**
   * The cheap check at the start of a tick: follow the loops' delivered changes and apply their autonomy
   * policy (no model call). A level change is written to LOOP.md, so the project is read again and this
   * very tick runs at the new level.
   */
  async function checkOutcomesBeforeTick(current: LoadedProject, ids: readonly string[]): Promise<LoadedProject> {
    const { configuredPlans, outcomesSync } = await import('../use-cases/outcomes/outcomes-facade.js');
    const known = ids.filter((loop) => current.patterns.some((pattern) => pattern.id === loop));
    const plans = (await Promise.all(known.map((loop) => configuredPlans(current, loop)))).flatMap((result) => result.plans);
    const result = await outcomesSync(current, plans, await withOutcomes());
    for (const check of result.checks) {
      if (check.syncError) options.progress?.(`${check.pattern}: outcomes not checked — ${check.syncError}`);
      if (check.change) options.progress?.(`${check.pattern}: level ${check.change.from} → ${check.change.to} (${check.change.reason})`);
    }
    if (!result.checks.some((check) => check.change)) return current;
    const reloaded = await loadProject(options.cwd);
    return reloaded.ok ? reloaded.project : current;
  }
  return { ok: true, runtime: withRedaction(runtime, project, options.env) };
}

/**
 * Methods that neither write nor show what a tick produced — configuration, counts, checks, built from files the
 * runtime wrote redacted — and skip the redactor: loading the rule set starts Node's ESM loader, which would cost
 * `status` its cold start (test/cli-cold-start.test.ts).
 */
const NOT_REDACTED = new Set<keyof Runtime>(['status', 'doctor', 'resetMock', 'metrics']);

/**
 * The runtime's one exit for text: every method's answer (and every event `events` hands its listener) passes
 * this repository's redactor before any caller — a CLI command's text and `--json`, a console response, the
 * library — sees it (but `NOT_REDACTED`). Before it, the repository's secret files are read (once per runtime)
 * so that every redactor for it (`redactorFor(env, root)`: writers, recordings, the journal) redacts their
 * values; a dry run writes nothing and skips that walk.
 */
function withRedaction(runtime: Runtime, project: LoadedProject, env: Record<string, string | undefined>): Runtime {
  let walking: Promise<void> | null = null;
  const wrapped: Record<string, unknown> = { ...runtime };
  for (const [name, method] of Object.entries(runtime)) {
    if (typeof method !== 'function' || NOT_REDACTED.has(name as keyof Runtime)) continue;
    wrapped[name] = async (...args: unknown[]) => {
      const request = args[name === 'run' ? 1 : 0] as { dryRun?: boolean } | undefined;
      const dryRun = (name === 'run' || name === 'runDue') && Boolean(request?.dryRun);
      if (!dryRun) {
        await (walking ??= prepareRedaction(project.root, project.settings?.worktreesDir ?? null));
      }
      const redact = redactorFor(env, project.root);
      if (name === 'events') {
        const listener = args[0] as (line: unknown) => void;
        return (method as (listener: (line: unknown) => void) => unknown).call(runtime, (line: unknown) => listener(redactValues(line, redact)));
      }
      return redactValues(await (method as (...input: unknown[]) => Promise<unknown>).apply(runtime, args), redact);
    };
  }
  return wrapped as unknown as Runtime;
}

/** A real tick of a loop the repository never configured is a config error: loops never enrol themselves. */
async function refuseUnconfigured(project: LoadedProject, id: string): Promise<{ ok: false; issues: Diagnostic[] } | null> {
  const issue = notConfiguredIssue(project, id);
  return issue ? { ok: false, issues: [issue] } : null;
}
