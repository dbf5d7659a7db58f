/**
 * Whether an agent may run here, and how: contained in bubblewrap when it
 * works; otherwise refused at L3, and below L3 only with the explicit
 * `allowUnsandboxed` opt-out (logged) — the same rule as the verifier's
 * command runner.
 */
import type { Level } from '../../core/config/schemas.js';
import { LoopRuntimeError } from '../../core/errors.js';
import { detectSandbox, type SandboxDetection } from '../command-runner/bwrap-runner.js';
import { findExecutable } from '../command-runner/sandbox-host.js';

export interface AgentContainmentOptions {
  /** The loop's level; absent (a library caller) is treated like "below L3". */
  level?: Level;
  allowUnsandboxed?: boolean;
  log?: (line: string) => void;
  env?: Record<string, string | undefined>;
  bwrapPath?: string;
  /** Injected for tests; default `detectSandbox()`. */
  detect?: () => Promise<SandboxDetection>;
}

export type AgentContainment = { kind: 'bwrap'; bwrapPath: string } | { kind: 'none'; reason: string };

/**
 * @throws LoopRuntimeError SANDBOX_UNAVAILABLE when the agent cannot be contained and may not run uncontained.
 * @example
 * ```ts
 * const containment = await requireAgentContainment({ level: 'L2', allowUnsandboxed: false });
 * ```
 */
export async function requireAgentContainment(options: AgentContainmentOptions): Promise<AgentContainment> {
  const env = options.env ?? process.env;
  const detect = options.detect ?? (() => detectSandbox({ env, ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}) }));
  const detection = await detect();
  if (detection.kind === 'bwrap') {
    return { kind: 'bwrap', bwrapPath: options.bwrapPath ?? (await findExecutable('bwrap', env)) ?? 'bwrap' };
  }
  const why = detection.kind === 'seatbelt' ? 'the agent sandbox needs bubblewrap (Linux); Seatbelt cannot confine reads to a list yet' : (detection.reason ?? 'no sandbox was found');
  const install = 'install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; enable unprivileged user namespaces if bwrap is present but fails)';
  const level = options.level ?? 'below L3';
  if (options.level === 'L3') {
    throw new LoopRuntimeError('SANDBOX_UNAVAILABLE', `Cannot run the agent at L3 without a sandbox: ${why}. Uncontained, it can read any file the user can and send it to the model.`, {
      fix: `${install}, or run this loop below L3.`,
      detail: detection,
    });
  }
  if (!options.allowUnsandboxed) {
    throw new LoopRuntimeError('SANDBOX_UNAVAILABLE', `Cannot run the agent without a sandbox: ${why}.`, {
      fix: `${install}, or pass --allow-unsandboxed to run it uncontained at ${level} (logged).`,
      detail: detection,
    });
  }
  options.log?.(`sandbox: none available for the agent (${why}); running it UNCONTAINED at ${level} because --allow-unsandboxed was given`);
  return { kind: 'none', reason: why };
}
