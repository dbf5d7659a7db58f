/**
 * One CommandRunner contract, run against the unsandboxed process runner and
 * the bubblewrap runner (real bwrap; skipped with the reason when this host
 * cannot run it, never silently).
 */
import { BwrapRunner, detectSandbox } from '../../src/adapters/command-runner/bwrap-runner.js';
import { createProcessRunner } from '../../src/adapters/command-runner/process-runner.js';
import { describeCommandRunnerConformance } from '../../src/testing/conformance/index.js';

describeCommandRunnerConformance('ProcessRunner', {
  create: ({ clock, env, killGraceMs }) => createProcessRunner({ clock, env, killGraceMs }),
  confinesFiles: false,
});

const sandbox = await detectSandbox();
describeCommandRunnerConformance('BwrapRunner', {
  create: ({ clock, env, home, killGraceMs }) => new BwrapRunner({ clock, env, home, killGraceMs }),
  confinesFiles: true,
  ...(sandbox.kind === 'bwrap' ? {} : { skip: `bubblewrap cannot run here: ${sandbox.reason ?? sandbox.kind}` }),
});
