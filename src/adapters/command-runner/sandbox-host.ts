/**
 * Host facts the sandboxed runners share: where executables are, which
 * hidden paths exist, and the per-command profile (real paths resolved).
 */
import { access, constants, lstat, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import type { Clock, CommandRunOptions } from '../../core/ports/index.js';
import type { SandboxProfile } from '../../core/sandbox/sandbox-profile.js';
import type { HostPathKind } from '../../core/sandbox/to-bwrap-args.js';
import { denylistVerificationProfile, verificationProfile } from '../../core/sandbox/verification-profile.js';
import { DEFAULT_OUTPUT_LIMIT } from './process-runner.js';
import { checkoutOfWorktree, type RepositorySettings } from './repository-secrets.js';

export const systemClock: Clock = { now: () => Date.now() };

export interface SandboxRunnerSettings {
  clock?: Clock;
  /** Host environment (scrubbed per profile; its secrets are redacted). Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Home directory whose credential paths are hidden. Default: os.homedir(). */
  home?: string;
  /** More paths to hide, e.g. the loop's other worktrees. */
  hiddenExtra?: readonly string[];
  /**
   * The user's checkout: never readable by a command (nor any directory holding it), and the values in
   * its secret files are redacted from every output. Default: found from the worktree's `.git` file.
   */
  repository?: RepositorySettings;
  /** Adjust the profile per command (tests, `sandbox run` flags). */
  adjustProfile?: (profile: SandboxProfile) => SandboxProfile;
  killGraceMs?: number;
  outputLimitBytes?: number;
}

/** Finds an executable on PATH. */
export async function findExecutable(name: string, env: Record<string, string | undefined> = process.env): Promise<string | null> {
  for (const directory of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(directory, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return null;
}

async function pathKind(path: string): Promise<HostPathKind> {
  try {
    const info = await stat(path);
    return info.isDirectory() ? 'directory' : 'file';
  } catch {
    return 'missing';
  }
}

/**
 * Resolves which hidden paths exist and what they are; a hidden symlink
 * hides its target too.
 */
export async function resolveHiddenPaths(paths: readonly string[]): Promise<{ hiddenPaths: string[]; pathKinds: Record<string, HostPathKind> }> {
  const pathKinds: Record<string, HostPathKind> = {};
  const hidden = new Set<string>();
  for (const path of paths) {
    hidden.add(path);
    pathKinds[path] = await pathKind(path);
    try {
      if ((await lstat(path)).isSymbolicLink()) {
        const target = await realpath(path);
        hidden.add(target);
        pathKinds[target] = await pathKind(target);
      }
    } catch {
      // missing or dangling: nothing to hide
    }
  }
  return { hiddenPaths: [...hidden], pathKinds };
}

async function realpathOr(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Builds the profile a sandboxed runner uses for one command.
 *
 * `allowlist` (bubblewrap): reads confined to the worktree, the system and toolchain directories and the
 * dependency directories (`verificationProfile`). `host` (Seatbelt, which cannot compile an allowlist yet):
 * the whole host read-only but credentials, other worktrees and the checkout's secret files and git
 * config hidden — a denylist, documented as the weaker guarantee.
 */
export async function profileFor(
  options: CommandRunOptions,
  settings: SandboxRunnerSettings,
  timeoutMs: number,
  reads: 'allowlist' | 'host' = 'host',
  hostEnv: Record<string, string | undefined> = process.env,
): Promise<SandboxProfile> {
  const worktree = await realpathOr(options.cwd);
  const writableExtra = await Promise.all((options.writableRoots ?? []).map(realpathOr));
  const hiddenExtra = await Promise.all((settings.hiddenExtra ?? []).map(realpathOr));
  const home = settings.home ?? homedir();
  const common = {
    worktree,
    home,
    writableExtra,
    network: options.network ?? 'none',
    timeoutMs,
    outputLimitBytes: options.outputLimitBytes ?? settings.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT,
  } as const;
  const checkout = settings.repository ? await realpathOr(settings.repository.root) : await checkoutOfWorktree(worktree);
  let profile: SandboxProfile;
  if (reads === 'allowlist') {
    const { dependencyPaths, toolchainPaths } = await import('./toolchain-paths.js');
    const input = { env: hostEnv, home, protectedRoots: [...(checkout && checkout !== worktree ? [checkout] : []), ...hiddenExtra] };
    const readable = [...(await toolchainPaths(input)), ...(await dependencyPaths(options.readOnlyBinds ?? [], input))];
    profile = verificationProfile({ ...common, hiddenExtra, readable });
  } else {
    const { findSecretFiles } = await import('../agent-sandbox/find-secret-files.js');
    const outside = checkout && checkout !== worktree ? checkout : null;
    const secrets = outside ? await findSecretFiles(outside, { skip: [worktree, ...hiddenExtra] }) : null;
    profile = denylistVerificationProfile({ ...common, hiddenExtra, checkout: outside, checkoutSecrets: secrets ? [...secrets.files, ...secrets.directories] : [] });
  }
  return settings.adjustProfile ? settings.adjustProfile(profile) : profile;
}
