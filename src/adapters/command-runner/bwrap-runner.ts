/**
 * The sandboxed CommandRunner for Linux (bubblewrap), sandbox detection, and
 * the factory that refuses to run unsandboxed at L3.
 */
import { access, constants, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Level } from '../../core/config/schemas.js';
import type { CommandEvidence, CommandRunner, CommandRunOptions } from '../../core/ports/index.js';
import { LoopRuntimeError } from '../../core/errors.js';
import type { CommandSpec } from '../../core/plan/execution-plan.js';
import type { SandboxProfile } from '../../core/sandbox/sandbox-profile.js';
import { denyInetSeccompProgram, seccompArchFor } from '../../core/sandbox/seccomp-deny-inet.js';
import { toBwrapArgs } from '../../core/sandbox/to-bwrap-args.js';
import { scrubEnv } from '../../core/security/scrub-env.js';
import { withDependencyBinds } from './dependency-binds.js';
import { createRepositorySecrets, handledLater, type RepositorySecrets } from './repository-secrets.js';
import { withReportDir } from './report-dir.js';
import { goBuildCacheDir, withGoBuildCache } from './go-build-cache.js';
import { createProcessRunner, effectiveTimeout, runProcess, secretsFor, toEvidence } from './process-runner.js';
import { findExecutable, profileFor, resolveHiddenPaths, systemClock, type SandboxRunnerSettings } from './sandbox-host.js';
import { SeatbeltRunner } from './seatbelt-runner.js';

export type { SandboxRunnerSettings } from './sandbox-host.js';

export interface BwrapRunnerSettings extends SandboxRunnerSettings {
  /** Path to bwrap. Default: found on PATH. */
  bwrapPath?: string;
  /** The Go build cache runs with `buildCache` use (see go-build-cache.ts); false: none. Default: in the checkout's state directory. */
  goBuildCache?: string | false;
}

/**
 * Runs commands under bubblewrap: the worktree writable; readable only the
 * system and toolchain directories and the dependency directories (an
 * allowlist: the checkout, the home and every other host path are absent);
 * the worktree's `.git` masked; own network namespace (no IP sockets at all
 * for network "none"), own pid namespace, a private /tmp, a scrubbed
 * environment; output redacted with the environment's and the repository's
 * secret-file values.
 *
 * @example
 * ```ts
 * const runner = new BwrapRunner({ hiddenExtra: otherWorktrees });
 * const evidence = await runner.run({ command: 'npm test', timeoutMs: 600_000 }, { cwd: worktree, timeoutMs: 600_000 });
 * ```
 */
export class BwrapRunner implements CommandRunner {
  readonly specificationVersion = 'command-runner-v1' as const;
  readonly isolation = 'bwrap';
  readonly collectsReports = true;
  private readonly settings: BwrapRunnerSettings;
  private readonly repositorySecrets: RepositorySecrets;

  constructor(settings: BwrapRunnerSettings = {}) {
    this.settings = settings;
    this.repositorySecrets = createRepositorySecrets(settings.repository);
  }

  async run(command: CommandSpec, options: CommandRunOptions): Promise<CommandEvidence> {
    if (options.reportDir) return withReportDir(options, (inner) => this.run(command, inner));
    if (options.buildCache && this.settings.goBuildCache !== false) {
      const cacheDir = this.settings.goBuildCache ?? (await goBuildCacheDir(options.cwd, this.settings.repository?.root, this.settings.env ?? process.env));
      return withGoBuildCache(options, cacheDir, (inner) => this.run(command, inner));
    }
    const clock = this.settings.clock ?? systemClock;
    const hostEnv = this.settings.env ?? process.env;
    const timeoutMs = effectiveTimeout(command.timeoutMs, options.timeoutMs);
    const startedAt = clock.now();
    const base = await profileFor(options, this.settings, timeoutMs, 'allowlist', hostEnv);
    const { hiddenPaths, pathKinds } = await resolveHiddenPaths(base.hiddenPaths);
    return withDependencyBinds(options.readOnlyBinds ?? [], 'mount-point', (readOnlyBinds) =>
      this.runIn({ ...base, hiddenPaths, ...(readOnlyBinds.length ? { readOnlyBinds } : {}) }, pathKinds, command, options, { startedAt, timeoutMs, hostEnv, clock }),
    );
  }

  private async runIn(
    profile: SandboxProfile,
    pathKinds: Awaited<ReturnType<typeof resolveHiddenPaths>>['pathKinds'],
    command: CommandSpec,
    options: CommandRunOptions,
    { startedAt, timeoutMs, hostEnv, clock }: { startedAt: number; timeoutMs: number; hostEnv: Record<string, string | undefined>; clock: { now(): number } },
  ): Promise<CommandEvidence> {
    // The home is absent: tools that keep a cache (go, pip, npm) get a per-run one in the private /tmp.
    const caches: Record<string, string> = profile.privateTmp ? { TMPDIR: '/tmp', XDG_CACHE_HOME: '/tmp/.cache', GOCACHE: '/tmp/.cache/go-build', npm_config_cache: '/tmp/.cache/npm' } : {};
    const env = { ...scrubEnv(hostEnv, profile.envAllowlist), ...caches, ...options.env };
    const bwrap = this.settings.bwrapPath ?? (await findExecutable('bwrap', hostEnv)) ?? 'bwrap';
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

    // The secret-file walk (the checkout once per runner, the worktree per command: 20,000 files take a few hundred
    // ms) runs while the command does. It sees at least every file there before the command started, and those
    // (with the environment, redacted apart) are where a command can take a secret value from: one it writes itself
    // holds nothing it did not read there.
    const repositorySecrets = handledLater(this.repositorySecrets.valuesFor(profile.writableRoots[0] ?? options.cwd));
    const arch = seccompArchFor(process.arch);
    let seccompDir: string | null = null;
    let seccompFile: Awaited<ReturnType<typeof open>> | null = null;
    try {
      if (profile.network === 'none' && arch) {
        seccompDir = await mkdtemp(join(tmpdir(), 'loop-runtime-seccomp-'));
        const file = join(seccompDir, 'deny-inet.bpf');
        await writeFile(file, denyInetSeccompProgram(arch));
        seccompFile = await open(file, 'r');
      }
      const args = toBwrapArgs(
        profile,
        { argv: ['sh', '-c', command.command], cwd: profile.writableRoots[0] ?? options.cwd, env },
        { isRoot, pathKinds, ...(seccompFile ? { seccompFd: 3 } : {}) },
      );
      const result = await runProcess({
        file: bwrap,
        args,
        cwd: profile.writableRoots[0] ?? options.cwd,
        env: { PATH: hostEnv.PATH ?? '/usr/bin:/bin' },
        timeoutMs,
        outputLimitBytes: profile.outputLimitBytes,
        ...(this.settings.killGraceMs !== undefined ? { killGraceMs: this.settings.killGraceMs } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(seccompFile ? { extraFds: [seccompFile.fd] } : {}),
      });
      const secrets = [...secretsFor(hostEnv, options.env), ...(await repositorySecrets)];
      return toEvidence(command.command, result, { startedAt, finishedAt: clock.now() }, profile.outputLimitBytes, secrets);
    } finally {
      await seccompFile?.close();
      if (seccompDir) await rm(seccompDir, { recursive: true, force: true });
    }
  }
}

export interface SandboxDetection {
  kind: 'bwrap' | 'seatbelt' | 'none';
  reason?: string;
}

export interface DetectSandboxOptions {
  platform?: NodeJS.Platform;
  env?: Record<string, string | undefined>;
  bwrapPath?: string;
}

/**
 * Which sandbox works here: bubblewrap on Linux (present on PATH and a
 * trial `bwrap --ro-bind / / … true` succeeds), sandbox-exec on macOS.
 */
export async function detectSandbox(options: DetectSandboxOptions = {}): Promise<SandboxDetection> {
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  if (platform === 'darwin') {
    const sandboxExec = '/usr/bin/sandbox-exec';
    try {
      await access(sandboxExec, constants.X_OK);
    } catch {
      return { kind: 'none', reason: `${sandboxExec} is missing` };
    }
    const trial = await runProcess({ file: sandboxExec, args: ['-p', '(version 1)(allow default)', '/usr/bin/true'], cwd: '/', env: {}, timeoutMs: 10_000, outputLimitBytes: 4_096 });
    return trial.exitCode === 0 ? { kind: 'seatbelt' } : { kind: 'none', reason: `sandbox-exec does not work here: ${trial.rawTail.trim() || `exit ${String(trial.exitCode)}`}` };
  }
  if (platform !== 'linux') return { kind: 'none', reason: `no supported sandbox on ${platform}` };
  const bwrap = options.bwrapPath ?? (await findExecutable('bwrap', env));
  if (!bwrap) return { kind: 'none', reason: 'bubblewrap (bwrap) is not installed' };
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const trial = await runProcess({
    file: bwrap,
    args: ['--die-with-parent', '--unshare-all', ...(isRoot ? ['--cap-drop', 'ALL'] : []), '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', 'true'],
    cwd: '/',
    env: { PATH: env.PATH ?? '/usr/bin:/bin' },
    timeoutMs: 10_000,
    outputLimitBytes: 4_096,
  });
  if (trial.exitCode === 0) return { kind: 'bwrap' };
  const why = trial.spawnError ?? (trial.rawTail.trim() || `exit ${String(trial.exitCode)}`);
  return { kind: 'none', reason: `bwrap is installed but cannot create a sandbox here (${why}); user namespaces may be disabled` };
}

export interface CreateSandboxedRunnerOptions extends BwrapRunnerSettings {
  level: Level;
  /** Below L3 only: run without isolation when no sandbox is available. Logged. */
  allowUnsandboxed: boolean;
  log: (line: string) => void;
  /** Injected for tests; default `detectSandbox()`. */
  detect?: () => Promise<SandboxDetection>;
}

/**
 * The runner a loop's commands use: bubblewrap or Seatbelt when available.
 * With no sandbox: refused at L3; below L3 only with `allowUnsandboxed`,
 * and that opt-out is logged.
 *
 * @throws LoopRuntimeError SANDBOX_UNAVAILABLE
 * @example
 * ```ts
 * const runner = await createSandboxedRunner({ level: plan.level, allowUnsandboxed: false, log: console.error });
 * ```
 */
export async function createSandboxedRunner(options: CreateSandboxedRunnerOptions): Promise<CommandRunner> {
  const detection = await (options.detect ?? (() => detectSandbox({ ...(options.env ? { env: options.env } : {}), ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}) })))();
  if (detection.kind === 'bwrap') return new BwrapRunner(options);
  if (detection.kind === 'seatbelt') return new SeatbeltRunner(options);
  const why = detection.reason ?? 'no sandbox was found';
  const install = 'install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; enable unprivileged user namespaces if bwrap is present but fails)';
  if (options.level === 'L3') {
    throw new LoopRuntimeError('SANDBOX_UNAVAILABLE', `Cannot run commands at L3 without a sandbox: ${why}. L3 merges on its own, so its commands must be isolated.`, {
      fix: `${install}, or run this loop below L3.`,
      detail: detection,
    });
  }
  if (!options.allowUnsandboxed) {
    throw new LoopRuntimeError('SANDBOX_UNAVAILABLE', `Cannot run commands without a sandbox: ${why}.`, {
      fix: `${install}, or pass --allow-unsandboxed to run them unisolated at ${options.level} (logged).`,
      detail: detection,
    });
  }
  options.log(`sandbox: none available (${why}); running commands WITHOUT isolation at ${options.level} because --allow-unsandboxed was given`);
  return createProcessRunner({
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
    ...(options.outputLimitBytes !== undefined ? { outputLimitBytes: options.outputLimitBytes } : {}),
    ...(options.repository ? { repository: options.repository } : {}),
  });
}
