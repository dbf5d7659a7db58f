/**
 * The sandboxed CommandRunner for macOS: `sandbox-exec -p <profile> sh -c …`
 * with the profile from `toSeatbeltProfile`. Not exercised on Linux CI; the
 * profile text itself is golden-tested.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandEvidence, CommandRunner, CommandRunOptions } from '../../core/ports/index.js';
import type { CommandSpec } from '../../core/plan/execution-plan.js';
import { toSeatbeltProfile } from '../../core/sandbox/to-seatbelt-profile.js';
import { scrubEnv } from '../../core/security/scrub-env.js';
import { effectiveTimeout, runProcess, secretsFor, toEvidence } from './process-runner.js';
import { createRepositorySecrets, handledLater, type RepositorySecrets } from './repository-secrets.js';
import { withReportDir } from './report-dir.js';
import { profileFor, systemClock, type SandboxRunnerSettings } from './sandbox-host.js';

export class SeatbeltRunner implements CommandRunner {
  readonly specificationVersion = 'command-runner-v1' as const;
  readonly isolation = 'seatbelt';
  readonly collectsReports = true;
  private readonly repositorySecrets: RepositorySecrets;
  constructor(private readonly settings: SandboxRunnerSettings = {}) {
    this.repositorySecrets = createRepositorySecrets(settings.repository);
  }

  async run(command: CommandSpec, options: CommandRunOptions): Promise<CommandEvidence> {
    if (options.reportDir) return withReportDir(options, (inner) => this.run(command, inner));
    const clock = this.settings.clock ?? systemClock;
    const hostEnv = this.settings.env ?? process.env;
    const timeoutMs = effectiveTimeout(command.timeoutMs, options.timeoutMs);
    const startedAt = clock.now();
    // Seatbelt cannot compile a read allowlist yet: the host stays readable, the checkout's secrets hidden.
    const profile = await profileFor(options, this.settings, timeoutMs, 'host', hostEnv);
    // Seatbelt matches real paths; a private per-command temp dir stands in for /tmp.
    // Walked while the command runs (see bwrap-runner.ts).
    const repositorySecrets = handledLater(this.repositorySecrets.valuesFor(profile.writableRoots[0] ?? options.cwd));
    const tmp = profile.privateTmp ? await realpath(await mkdtemp(join(tmpdir(), 'loop-runtime-tmp-'))) : null;
    try {
      const text = toSeatbeltProfile(profile, tmp ? { tmpDir: tmp } : {});
      const env = { ...scrubEnv(hostEnv, profile.envAllowlist), ...(tmp ? { TMPDIR: tmp } : {}), ...options.env };
      const result = await runProcess({
        file: '/usr/bin/sandbox-exec',
        args: ['-p', text, 'sh', '-c', command.command],
        cwd: profile.writableRoots[0] ?? options.cwd,
        env,
        timeoutMs,
        outputLimitBytes: profile.outputLimitBytes,
        ...(this.settings.killGraceMs !== undefined ? { killGraceMs: this.settings.killGraceMs } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const secrets = [...secretsFor(hostEnv, options.env), ...(await repositorySecrets)];
      return toEvidence(command.command, result, { startedAt, finishedAt: clock.now() }, profile.outputLimitBytes, secrets);
    } finally {
      if (tmp) await rm(tmp, { recursive: true, force: true });
    }
  }
}
