/**
 * The verifier: evidence the engine gathered itself, after the implementer's
 * last write, decides. The checker (the backend in a read-only role) can
 * only lower a verdict, never turn a failing command into an approval.
 * No verification command means no evidence, and no evidence is never an
 * approval: the change is escalated to a human (at every level, so L3 never
 * merges it), with the reason and the setting that fixes it.
 */
import { checkDiffIntegrity } from '../verify/check-diff-integrity.js';
import { combineVerdict } from '../verify/combine-verdict.js';
import type { EnginePorts } from './engine-ports.js';
import type { ChangeSet, CheckOutput, CommandEvidence, Verdict, WorkItem, WorkspaceHandle } from '../ports/index.js';
import type { TickContext } from './tick-context.js';

/** Why a change with no verification command is escalated, and the exact setting that fixes it. */
export const NO_EVIDENCE_REASON =
  'no verification command ran, so nothing shows the change works and a human must review it. ' +
  'To fix: list the commands that prove a change works under `verify:` in the `loop-runtime:` block of LOOP.md front matter ' +
  '(e.g. `verify: [npm test]`; per loop under `loops.<id>:` or in loops/<id>/LOOP.md)';

export type VerifyOutcome =
  | { kind: 'verdict'; verdict: Verdict; reasons: string[]; evidence: CommandEvidence[] }
  | { kind: 'paused'; source: string }
  | { kind: 'unaffordable'; message: string }
  | { kind: 'overrun'; message: string };

export async function verifyChange(
  context: TickContext,
  ports: EnginePorts,
  handle: WorkspaceHandle,
  item: WorkItem,
  changes: ChangeSet,
  lastWriteAt: number,
): Promise<VerifyOutcome> {
  const planned = context.plan.phases.verify;
  // Verify off: nothing runs, nothing checks, and (below) nothing is approved.
  const verify = planned.enabled ? planned : { ...planned, commands: [], checker: false };
  const evidence: CommandEvidence[] = [];
  if (verify.commands.length > 0 && !ports.commands) {
    return { kind: 'verdict', verdict: 'REJECT', reasons: ['verification commands are configured but no command runner was given to the engine'], evidence };
  }
  for (const command of verify.commands) {
    const result = await ports.commands!.run(command, { cwd: handle.path, timeoutMs: command.timeoutMs });
    // Identity is the plan's command: a runner may redact the text it reports, and two commands that redact
    // alike must not merge into one (a passing one would hide a failing one) or go missing as "no evidence".
    evidence.push({ ...result, command: command.command });
  }
  const passed = evidence.filter((entry) => entry.exitCode === 0 && !entry.timedOut).length;
  const integrity = checkDiffIntegrity(changes, { protectedPaths: verify.protectedPaths });
  context.step(
    'verify',
    [
      verify.commands.length ? `verification: ${passed}/${verify.commands.length} command(s) passed` : 'verification: no commands configured',
      integrity.length ? `${integrity.length} integrity finding(s): ${integrity.map((finding) => `${finding.kind} ${finding.path}`).join(', ')}` : 'diff integrity ok',
    ].join('; '),
  );

  let checker: CheckOutput | null = null;
  if (verify.checker) {
    const call = await context.callBackend({
      role: 'check',
      item,
      workspace: handle,
      evidence,
      changes,
      permissions: { write: false, execute: false },
      ...(ports.workspace?.files ? { files: readOnly(ports.workspace.files(handle)) } : {}),
    });
    if (call.kind === 'overrun') return { kind: 'overrun', message: call.message };
    if (call.kind !== 'done') return call;
    if (call.result.ok) checker = call.result.output;
    context.step('check', call.result.ok ? `checker (read-only): ${call.result.output.verdict}` : `checker failed: ${call.result.message}`, call.tokens);
  }
  const combined = combineVerdict({
    evidence,
    integrity,
    checker,
    lastWriteAt,
    expectedCommands: verify.commands.map((command) => command.command),
    requireEvidence: verify.commands.length > 0,
    checkerConfigured: verify.checker,
  });
  if (verify.commands.length === 0) {
    // Fail closed: the checker's opinion alone never approves; the change waits for a human.
    if (combined.verdict === 'APPROVE') combined.verdict = 'ESCALATE_HUMAN';
    combined.reasons.unshift(planned.enabled ? NO_EVIDENCE_REASON : `the plan has the verify phase off at ${context.plan.level}, so nothing shows the change works and a human must review it`);
  }
  if (combined.verdict === 'APPROVE' && combined.reasons.length === 0) {
    combined.reasons.push(
      ...(verify.commands.length ? [`${passed}/${verify.commands.length} verification command(s) passed after the last edit`] : []),
      ...(checker?.reasons ?? []),
    );
  }
  return { kind: 'verdict', ...combined, evidence };
}

function readOnly(files: { read(path: string): Promise<string | null> }): { read(path: string): Promise<string | null>; write(): Promise<void> } {
  return {
    read: (path) => files.read(path),
    write: async () => {
      throw new Error('the checker is read-only');
    },
  };
}
