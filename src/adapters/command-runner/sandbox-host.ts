/**
 * Host facts the sandboxed runners share: where executables are, which
 * hidden paths exist, and the per-command profile (real paths resolved).
 */
import { access, constants, lstat, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import type { Clock, CommandRunOptions } from '../../core/ports/index.js';
import { defaultProfile, type SandboxProfile } from '../../core/sandbox/sandbox-profile.js';
import type { HostPathKind } from '../../core/sandbox/to-bwrap-args.js';
import { DEFAULT_OUTPUT_LIMIT } from './process-runner.js';

export const systemClock: Clock = { now: () => Date.now() };

export interface SandboxRunnerSettings {
  clock?: Clock;
  /** Host environment (scrubbed per profile; its secrets are redacted). Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Home directory whose credential paths are hidden. Default: os.homedir(). */
  home?: string;
  /** More paths to hide, e.g. the loop's other worktrees. */
  hiddenExtra?: readonly string[];
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

/** Builds the profile a sandboxed runner uses for one command. */
export async function profileFor(options: CommandRunOptions, settings: SandboxRunnerSettings, timeoutMs: number): Promise<SandboxProfile> {
  const worktree = await realpathOr(options.cwd);
  const writableExtra = await Promise.all((options.writableRoots ?? []).map(realpathOr));
  const hiddenExtra = await Promise.all((settings.hiddenExtra ?? []).map(realpathOr));
  const profile = defaultProfile({
    worktree,
    home: settings.home ?? homedir(),
    hiddenExtra,
    writableExtra,
    network: options.network ?? 'none',
    timeoutMs,
    outputLimitBytes: options.outputLimitBytes ?? settings.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT,
  });
  return settings.adjustProfile ? settings.adjustProfile(profile) : profile;
}

