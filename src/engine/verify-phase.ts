/**
 * The verifier: evidence the engine gathered itself, after the implementer's
 * last write, decides. The checker (the backend in a read-only role) can
 * only lower a verdict, never turn a failing command into an approval.
 */
import type { EnginePorts } from './engine-ports.js';
import type { ChangeSet, CheckOutput, CommandEvidence, Verdict, WorkItem, WorkspaceHandle } from './ports.js';
import type { TickContext } from './tick-context.js';

export type VerifyOutcome =
  | { kind: 'verdict'; verdict: Verdict; reasons: string[]; evidence: CommandEvidence[] }
  | { kind: 'paused'; source: string }
  | { kind: 'unaffordable'; message: string };

function commandFailed(evidence: CommandEvidence): string | null {
  if (evidence.timedOut) return `\`${evidence.command}\` timed out after ${evidence.durationMs} ms`;
  if (evidence.exitCode !== 0) {
    return `\`${evidence.command}\` failed (exit ${evidence.exitCode ?? 'none'}${evidence.signal ? `, signal ${evidence.signal}` : ''})`;
  }
  return null;
}

export interface CombineInput {
  requiredCommands: number;
  evidence: readonly CommandEvidence[];
  checker: CheckOutput | null;
  checkerRequired: boolean;
  lastWriteAt: number;
}

/** Evidence first, then the checker; unclear means REJECT. */
export function combineEvidence(input: CombineInput): { verdict: Verdict; reasons: string[] } {
  const reasons: string[] = [];
  const fresh = input.evidence.filter((evidence) => evidence.finishedAt >= input.lastWriteAt);
  if (fresh.length < input.requiredCommands) {
    reasons.push(`only ${fresh.length} of ${input.requiredCommands} verification command(s) ran after the last edit`);
  }
  for (const evidence of fresh) {
    const failure = commandFailed(evidence);
    if (failure) reasons.push(failure);
  }
  if (reasons.length > 0) return { verdict: 'REJECT', reasons };
  if (!input.checkerRequired) return { verdict: 'APPROVE', reasons: ['all verification commands passed'] };
  if (!input.checker) return { verdict: 'REJECT', reasons: ['the checker gave no clear verdict'] };
  return { verdict: input.checker.verdict, reasons: input.checker.reasons.length ? input.checker.reasons : [`checker: ${input.checker.verdict}`] };
}

export async function verifyChange(
  context: TickContext,
  ports: EnginePorts,
  handle: WorkspaceHandle,
  item: WorkItem,
  changes: ChangeSet,
  lastWriteAt: number,
): Promise<VerifyOutcome> {
  const verify = context.plan.phases.verify;
  const evidence: CommandEvidence[] = [];
  if (verify.commands.length > 0 && !ports.commands) {
    return { kind: 'verdict', verdict: 'REJECT', reasons: ['verification commands are configured but no command runner was given to the engine'], evidence };
  }
  for (const command of verify.commands) {
    const result = await ports.commands!.run(command, { cwd: handle.path, timeoutMs: command.timeoutMs });
    evidence.push(result);
  }
  const passed = evidence.filter((entry) => commandFailed(entry) === null).length;
  context.step('verify', verify.commands.length ? `${passed}/${verify.commands.length} verification command(s) passed` : 'no verification commands configured');

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
    if (call.kind !== 'done') return call;
    if (call.result.ok) checker = call.result.output;
    context.step('check', call.result.ok ? `checker verdict: ${call.result.output.verdict}` : `checker failed: ${call.result.message}`, call.tokens);
  }
  const combined = combineEvidence({ requiredCommands: verify.commands.length, evidence, checker, checkerRequired: verify.checker, lastWriteAt });
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
