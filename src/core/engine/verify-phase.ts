/**
 * The verifier: evidence the engine gathered itself, after the implementer's
 * last write, decides. The checker (the backend in a read-only role) can
 * only lower a verdict, never turn a failing command into an approval, and
 * it is not called (nor paid for) once a command already failed.
 * No verification command means no evidence, and no evidence is never an
 * approval: the change is escalated to a human (at every level, so L3 never
 * merges it), with the reason and the setting that fixes it.
 *
 * Fail-to-pass / pass-to-pass: before the implementer runs, the commands run
 * at the base commit (`runBaseline`); after it, a change that edits tests or
 * what runs them is verified again with the base's versions of those paths
 * (`Workspace.withBaseFiles`), and every command must pass both ways.
 */
import { checkDiffIntegrity, type IntegrityOptions } from '../verify/check-diff-integrity.js';
import { combineVerdict, type VerdictInput } from '../verify/combine-verdict.js';
import { planReports, runWithReport, testSummary } from '../verify/test-reports/run-with-report.js';
import type { ReportPlan } from '../verify/test-reports/test-evidence.js';
import { verificationEdits, type VerificationEdit } from '../verify/verification-paths.js';
import { implementerBrief } from '../verify/implementer-brief.js';
import { baselineCacheKey, cacheableBaseline, cachedBaseline } from '../verify/baseline-cache.js';
import { scriptsOf } from '../verify/test-reports/detect-test-runner.js';
import type { EnginePorts } from './engine-ports.js';
import type { ChangeSet, CheckOutput, CommandEvidence, CommandRunOptions, ImplementVerification, ReadOnlyBind, Verdict, WorkItem, WorkspaceHandle } from '../ports/index.js';
import { INTERRUPT_SOURCE, type TickContext } from './tick-context.js';
import { restoreGatedTree } from './verify-gated-tree.js';
import type { BaselineSummary } from './tick-result.js';

/** Why a change with no verification command is escalated, and the exact setting that fixes it. */
export const NO_EVIDENCE_REASON =
  'no verification command ran, so nothing shows the change works and a human must review it. ' +
  'To fix: list the commands that prove a change works under `verify:` in the `loop-runtime:` block of LOOP.md front matter ' +
  '(e.g. `verify: [npm test]`; per loop under `loops.<id>:` or in loops/<id>/LOOP.md)';

export type VerifyOutcome =
  | { kind: 'verdict'; verdict: Verdict; reasons: string[]; evidence: CommandEvidence[]; baseTests?: CommandEvidence[]; verificationEdits?: VerificationEdit[] }
  | { kind: 'paused'; source: string }
  | { kind: 'unaffordable'; message: string }
  | { kind: 'overrun'; message: string };

const failed = (entry: CommandEvidence) => entry.exitCode !== 0 || entry.timedOut || entry.signal !== null;

/**
 * Report plans per attempt: the base they are read from does not move, so the base's run and the change's share
 * one. Kept on the tick's context (one attempt per tick), not in a WeakMap keyed by a handle made every tick.
 */
function reportPlans(context: TickContext, ports: EnginePorts, handle: WorkspaceHandle, commands: TickContext['plan']['phases']['verify']['commands']): Promise<Map<string, ReportPlan>> {
  const known = context.reportPlans;
  if (known?.handle === handle && known.commands === commands) return known.plans;
  // The reporter is chosen from the base's package.json scripts: the agent's edits to them never choose it.
  const plans = planReports(commands, ports.commands!, async (path) => (ports.workspace.readBase ? await ports.workspace.readBase(handle, path) : ((await ports.workspace.files?.(handle).read(path)) ?? null)));
  context.reportPlans = { handle, commands, plans };
  return plans;
}

async function runAll(
  context: TickContext,
  ports: EnginePorts,
  handle: WorkspaceHandle,
  commands: TickContext['plan']['phases']['verify']['commands'],
  binds: ReadOnlyBind[],
  // Only the base's own run may fill a build cache later runs read; a change's run gets a throwaway copy.
  buildCache: 'warm' | 'copy',
): Promise<CommandEvidence[]> {
  const evidence: CommandEvidence[] = [];
  const reports = await reportPlans(context, ports, handle, commands);
  for (const command of commands) {
    // Stopped by a signal: no further command starts (the one it killed is not evidence; see `interruptedVerification`).
    if (context.interrupted) break;
    context.phaseStart('verify', command.command);
    // Optional keys set on the options just built (same order), not spread in from a literal made per key.
    const options: CommandRunOptions = { cwd: handle.path, timeoutMs: command.timeoutMs, buildCache };
    if (binds.length) options.readOnlyBinds = binds;
    if (ports.signal) options.signal = ports.signal;
    const result = await runWithReport(ports.commands!, command, options, reports.get(command.command) ?? { detected: null, instrumentation: null, collects: false });
    // Identity is the plan's command (runWithReport sets it): a runner may redact the text it reports, and two
    // commands that redact alike must not merge into one (a passing one would hide a failing one) or go missing.
    evidence.push(result);
  }
  return evidence;
}

/**
 * Runs the verification commands at the base commit, before the implementer
 * touches the workspace: which fail is the evidence the item is about. Once
 * per attempt; null when nothing would run (verify off, no commands, no runner).
 */
export async function runBaseline(context: TickContext, ports: EnginePorts, handle: WorkspaceHandle): Promise<BaselineSummary | null> {
  const planned = context.plan.phases.verify;
  if (!planned.enabled || planned.commands.length === 0 || !ports.commands) return null;
  const cache = ports.workspace.baselineCache?.(handle);
  const key = cache ? baselineCacheKey(handle.baseCommit, planned.commands, ports.commands) : '';
  const cached = cache ? cachedBaseline(await cache.read(key).catch(() => null), planned.commands) : null;
  const evidence = cached ?? (await runAll(context, ports, handle, planned.commands, ports.workspace.dependencyDirs ? ((await ports.workspace.dependencyDirs(handle)) ?? []) : [], 'warm'));
  if (cached) context.step('verify', `base ${handle.baseCommit.slice(0, 12)}: results from the cache (same commit, commands and environment); nothing ran`);
  else if (cache && !context.interrupted && cacheableBaseline(evidence, planned.commands)) await cache.write(key, evidence).catch(() => undefined);
  if (context.interrupted) {
    context.step('verify', `base ${handle.baseCommit.slice(0, 12)}: interrupted by ${context.interruptedBy} before the implementer`);
    return null;
  }
  const failing = evidence.filter(failed).map((entry) => entry.command);
  const base = handle.baseCommit.slice(0, 12);
  context.step(
    'verify',
    failing.length > 0
      ? `base ${base}: ${failing.length}/${evidence.length} command(s) fail before the change (${failing.map((command) => `\`${command}\``).join(', ')}); each must pass after it, with the base's tests`
      : `base ${base}: green — every verification command passed before the change, so passing after it shows nothing broke, not that the item is fixed`,
  );
  const perTest = evidence.map(testSummary).filter((line): line is string => line !== null);
  if (perTest.length) context.step('verify', `base ${base} per test: ${perTest.join('; ')} — where a report shows which tests fail, those must pass and every passing test must keep passing`);
  return { commit: handle.baseCommit, evidence, failing, ...(cached ? { fromCache: true as const } : {}) };
}

/**
 * What the implementer is told about verification (see `implementerBrief`): the commands as they will run, the
 * runner each drives (a package script read at the base), the base's failing tests and output. Undefined when no
 * baseline ran.
 */
export async function verificationBrief(context: TickContext, ports: EnginePorts, handle: WorkspaceHandle, baseline: BaselineSummary | null): Promise<ImplementVerification | undefined> {
  if (!baseline) return undefined;
  const commands = context.plan.phases.verify.commands;
  const packageScript = commands.some((spec) => /^\s*(?:npm|pnpm|yarn|bun)\s/.test(spec.command));
  const scripts = packageScript ? scriptsOf((await ports.workspace.readBase?.(handle, 'package.json')) ?? null) : null;
  return implementerBrief(commands, baseline.evidence, scripts);
}

export async function verifyChange(
  context: TickContext,
  ports: EnginePorts,
  handle: WorkspaceHandle,
  item: WorkItem,
  changes: ChangeSet,
  lastWriteAt: number,
  baseline: BaselineSummary | null = null,
): Promise<VerifyOutcome> {
  const planned = context.plan.phases.verify;
  // Verify off: nothing runs, nothing checks, and (below) nothing is approved.
  const verify = planned.enabled ? planned : Object.assign({}, planned, { commands: [], checker: false });
  if (verify.commands.length > 0 && !ports.commands) {
    return { kind: 'verdict', verdict: 'REJECT', reasons: ['verification commands are configured but no command runner was given to the engine'], evidence: [] };
  }
  const running = verify.commands.length > 0;
  // The commands judge the tree to be committed: ignored files the change wrote are gone before they run.
  // A capability the workspace lacks is not awaited at all (an await of nothing still costs a hop, twice a tick).
  const gatedTree = running && ports.workspace.restoreGatedTree !== undefined;
  const gated = gatedTree ? await restoreGatedTree(context, ports, handle, 'before verification') : [];
  const binds = running && ports.workspace.dependencyDirs ? ((await ports.workspace.dependencyDirs(handle)) ?? []) : [];
  const evidence = await runAll(context, ports, handle, verify.commands, binds, 'copy');
  if (context.interrupted) return interruptedVerification(context);
  if (gatedTree) gated.push(...(await restoreGatedTree(context, ports, handle, 'after the change')));
  const files = ports.workspace.files?.(handle);
  const edits = await verificationEdits(changes, async (path) => ({
    before: (await ports.workspace.readBase?.(handle, path)) ?? null,
    after: files ? await files.read(path) : null,
  }));

  let baseTests: CommandEvidence[] | undefined;
  let baseTestsUnavailable: string | undefined;
  const wholeFiles = edits.filter((edit) => !edit.inSource);
  // Rust's tests live inside the source: the base's test items go back into the change's code, file by file.
  const inlineTests = edits.filter((edit) => edit.inSource && edit.path.endsWith('.rs')).map((edit) => edit.path);
  const restorable = [...wholeFiles, ...edits.filter((edit) => inlineTests.includes(edit.path))];
  if (restorable.length > 0 && verify.commands.length > 0) {
    const paths = wholeFiles.map((edit) => edit.path);
    if (!ports.workspace.withBaseFiles) {
      baseTestsUnavailable = `the change edits tests or what runs them (${restorable.map((edit) => edit.path).join(', ')}), and this workspace cannot put the base's versions back to verify without those edits`;
    } else {
      const ran = await ports.workspace.withBaseFiles(handle, paths, () => runAll(context, ports, handle, verify.commands, binds, 'copy'), inlineTests.length ? { testItemsOf: inlineTests } : undefined);
      if (context.interrupted) return interruptedVerification(context);
      gated.push(...(await restoreGatedTree(context, ports, handle, "after the base's tests")));
      if (ran.ok) baseTests = ran.value;
      else baseTestsUnavailable = `the base's tests could not be put in place to verify the change without its test edits: ${ran.message}`;
    }
  }

  const passed = evidence.filter((entry) => !failed(entry)).length;
  const baselineOutput = baseline ? baseline.evidence.filter(failed).map((entry) => entry.output).join('\n') : '';
  // The optional key set on the options just built, and the gated tree's findings appended to the list the check
  // returns (a new one per call), not spread into copies.
  const integrityOptions: IntegrityOptions = { protectedPaths: verify.protectedPaths };
  if (baselineOutput) integrityOptions.baselineOutput = baselineOutput;
  const integrity = checkDiffIntegrity(changes, integrityOptions);
  for (const finding of gated) integrity.push(finding);
  context.step(
    'verify',
    [
      verify.commands.length
        ? `verification: ${passed}/${verify.commands.length} command(s) passed`
        : verify.notRunInRehearsal?.length
          ? `verification: not run in a rehearsal (a real tick runs ${verify.notRunInRehearsal.join(', ')})`
          : 'verification: no commands configured',
      ...evidence.map(testSummary).filter((line): line is string => line !== null),
      ...(baseTests ? [`with the base's tests (${restorable.length} test/config path(s) restored): ${baseTests.filter((entry) => !failed(entry)).length}/${baseTests.length} passed`] : []),
      integrity.length ? `${integrity.length} integrity finding(s): ${integrity.map((finding) => `${finding.kind} ${finding.path}`).join(', ')}` : 'diff integrity ok',
    ].join('; '),
  );

  const itemText = [item.title, item.untrustedDetail ?? ''].join('\n');
  /** The inputs both verdicts share, set on the input just built (no spread of a literal per optional key). */
  const withShared = (input: VerdictInput): VerdictInput => {
    if (baseTests) input.baseTests = baseTests;
    input.itemText = itemText;
    if (baseline) input.baseline = baseline.evidence;
    return input;
  };
  // Whether the evidence alone already rejects (per test where there are reports, else by exit code).
  const commandFailed = combineVerdict(withShared({ evidence, integrity: [], checker: null, lastWriteAt, checkerConfigured: false, requireEvidence: false })).verdict === 'REJECT';
  let checker: CheckOutput | null = null;
  let checkerConfigured = verify.checker;
  if (verify.checker && commandFailed) {
    // The verdict is already REJECT on evidence; the checker could only agree, so it is not paid for.
    checkerConfigured = false;
    context.step('check', 'checker not called: a verification command already failed, so the change is rejected without paying for a review');
  } else if (verify.checker) {
    const call = await context.callBackend({
      role: 'check',
      item,
      workspace: handle,
      evidence,
      changes,
      permissions: { write: false, execute: false },
      ...(files ? { files: readOnly(files) } : {}),
    });
    if (call.kind === 'overrun') return { kind: 'overrun', message: call.message };
    if (call.kind !== 'done') return call;
    if (call.result.ok) checker = call.result.output;
    context.step('check', call.result.ok ? `checker (read-only): ${call.result.output.verdict}` : `checker failed: ${call.result.message}`, call.tokens);
  }
  const input: VerdictInput = {
    evidence,
    integrity,
    checker,
    lastWriteAt,
    expectedCommands: verify.commands.map((command) => command.command),
    requireEvidence: verify.commands.length > 0,
    checkerConfigured,
    verificationEdits: edits,
    testEditsAllowed: verify.testEdits === 'allow',
  };
  if (baseTestsUnavailable) input.baseTestsUnavailable = baseTestsUnavailable;
  const combined = combineVerdict(withShared(input));
  if (verify.commands.length === 0) {
    // Fail closed: the checker's opinion alone never approves; the change waits for a human.
    if (combined.verdict === 'APPROVE') combined.verdict = 'ESCALATE_HUMAN';
    combined.reasons.unshift(
      !planned.enabled
        ? `the plan has the verify phase off at ${context.plan.level}, so nothing shows the change works and a human must review it`
        : verify.notRunInRehearsal?.length
          ? `a rehearsal runs no verification command (a real tick runs ${verify.notRunInRehearsal.join(', ')}), so nothing shows the change works: a rehearsed change always ends with a human`
          : NO_EVIDENCE_REASON,
    );
  }
  if (combined.verdict === 'APPROVE' && combined.reasons.length === 0) {
    combined.reasons.push(
      ...(verify.commands.length ? [`${passed}/${verify.commands.length} verification command(s) passed after the last edit`] : []),
      ...(baseTests ? [`and with the base's tests and test configuration (${restorable.length} path(s) restored)`] : []),
      ...(baseline ? (combined.notes?.length ? combined.notes : [baselineNote(baseline)]) : []),
      ...(checker?.reasons ?? []),
    );
  }
  // Notes went into the reasons above and are left out; the optional keys are set on the outcome just built (no
  // rest copy, no spread of a literal per key).
  const outcome: Extract<VerifyOutcome, { kind: 'verdict' }> = { kind: 'verdict', verdict: combined.verdict, reasons: combined.reasons, evidence };
  if (baseTests) outcome.baseTests = baseTests;
  if (edits.length) outcome.verificationEdits = edits;
  return outcome;
}

/**
 * A stop signal killed a verification command: its exit is the signal's, not the change's, so it is no evidence
 * either way. The change is not verified — kept for a human by the act phase, no failed attempt — never rejected.
 */
function interruptedVerification(context: TickContext): VerifyOutcome {
  context.step('verify', `verification interrupted by ${context.interruptedBy}: the change is not verified (no verdict, not a failed attempt)`);
  return { kind: 'paused', source: INTERRUPT_SOURCE };
}

function baselineNote(baseline: BaselineSummary): string {
  return baseline.failing.length > 0
    ? `fail-to-pass: ${baseline.failing.map((command) => `\`${command}\``).join(', ')} failed at the base and pass now`
    : 'the base was green (no verification command failed before the change): the commands show nothing broke, not that the item is fixed';
}

function readOnly(files: { read(path: string): Promise<string | null> }): { read(path: string): Promise<string | null>; write(): Promise<void> } {
  return {
    read: (path) => files.read(path),
    write: async () => {
      throw new Error('the checker is read-only');
    },
  };
}
