/**
 * `sandbox run`: one command under the profile the verifier uses (the current directory as the writable worktree),
 * so users can see what a loop's commands can and cannot do. The runner comes from the composition root
 * (`sandboxRunnerFor`); this decides the profile — the same rule as a loop below L3: no sandbox → only with the
 * explicit, logged opt-out.
 *
 * @example
 * ```ts
 * const ran = await runSandboxed({ command: 'touch /etc/x', cwd, network: 'none', writableRoots: [], timeoutMs: 60_000, allowUnsandboxed: false, env }, sandboxRunnerFor);
 * ```
 */
import type { CommandEvidence, CommandRunner } from '../core/ports/index.js';
import type { Level } from '../core/config/schemas.js';

export interface SandboxRunRequest {
  /** One shell command line. */
  command: string;
  cwd: string;
  network: 'none' | 'loopback';
  /** Writable beyond `cwd`, absolute. */
  writableRoots: string[];
  timeoutMs: number;
  allowUnsandboxed: boolean;
  env: Record<string, string | undefined>;
}

export type SandboxRunnerFactory = (options: { level: Level; allowUnsandboxed: boolean; log: (line: string) => void; env: Record<string, string | undefined> }) => Promise<CommandRunner>;

export interface SandboxRun {
  isolation: string;
  evidence: CommandEvidence;
  /** What the runner logged (the unsandboxed opt-out). */
  notes: string[];
}

export async function runSandboxed(request: SandboxRunRequest, runnerFor: SandboxRunnerFactory): Promise<SandboxRun> {
  const notes: string[] = [];
  const runner = await runnerFor({ level: 'L2', allowUnsandboxed: request.allowUnsandboxed, log: (line) => notes.push(line), env: request.env });
  const { command, cwd, timeoutMs, network, writableRoots } = request;
  const evidence = await runner.run({ command, timeoutMs }, { cwd, timeoutMs, network, writableRoots });
  return { isolation: runner.isolation, evidence, notes };
}
