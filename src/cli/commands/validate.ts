/**
 * `loop-runtime validate`: load every config file, compile a plan for every
 * configured loop, and print every diagnostic. Exit 3 on any error; warnings
 * do not fail.
 */
import pc from 'picocolors';
import { formatDiagnostic, sortDiagnostics } from '../../core/config/diagnostics.js';
import type { Diagnostic } from '../../core/config/diagnostics.js';
import { ExitCode } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
// Static: this module is itself loaded by `import()` (commands/index.ts); an `import()` here cost a facade file.
import { loadProject, resolvePlan } from '../../project/load-project.js';
import { checkPreconditions, preconditionDiagnostics, repositoryProbe } from '../../use-cases/preconditions.js';

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Handler for `loop-runtime validate`. */
export async function validateCommand({ io }: CommandContext): Promise<CommandOutput> {
  const loaded = await loadProject(io.cwd);
  const errors: Diagnostic[] = loaded.ok ? [] : [...loaded.issues];
  const warnings: Diagnostic[] = [...loaded.warnings];
  const configuredLoops = loaded.ok ? loaded.project.configuredLoops : [];
  const files = loaded.ok ? Object.keys(loaded.project.files) : [];
  if (loaded.ok) {
    // One repository, many loops: git and gh are asked once, not once per loop.
    const repository = repositoryProbe(loaded.project.root, io.env);
    let needsSandbox = false;
    for (const id of configuredLoops) {
      const resolved = await resolvePlan(loaded.project, id);
      if (!resolved.ok) {
        errors.push(...resolved.issues);
        continue;
      }
      warnings.push(...resolved.warnings);
      // What a tick would stop on before its first model call, as warnings: this machine may not be where loops run.
      const { plan } = resolved;
      warnings.push(...preconditionDiagnostics(`${id} (precondition)`, await checkPreconditions(loaded.project.root, plan, { env: io.env, dryRun: false, repository })));
      needsSandbox ||= plan.phases.implement.enabled && plan.phases.verify.enabled && plan.phases.verify.commands.length > 0;
    }
    if (needsSandbox) {
      const [{ sandboxCheck }, { sandboxRunnerFor }] = await Promise.all([import('../../use-cases/doctor.js'), import('../../composition/host-adapters.js')]);
      const sandbox = await sandboxCheck(io.env, 10_000, sandboxRunnerFor);
      if (!sandbox.ok) {
        warnings.push({ severity: 'warning', file: 'sandbox (precondition)', line: 0, column: 0, path: '', message: `a loop runs verification commands, but the sandbox cannot run them: ${sandbox.detail}`, fix: sandbox.fix ?? 'run `loop-runtime doctor` for details.', code: 'PRECONDITION_SANDBOX' });
      }
    }
  }
  if (loaded.ok && configuredLoops.length === 0 && files.length === 0) {
    // Nothing to validate is a failure, as Renovate's validator says: a CI step checking the wrong directory must not pass.
    errors.push({
      severity: 'error',
      file: loaded.project.root,
      line: 0,
      column: 0,
      path: '',
      message: 'holds no loop configuration (no registry.yaml, LOOP.md, gate.yaml, loop-budget.md, loop-ledger.json or state file), so there is nothing to validate.',
      fix: 'scaffold loops with `npx @cobusgreyling/loop-init`, or pass the repository root with --cwd.',
      code: 'NOTHING_TO_VALIDATE',
    });
  }
  const sortedErrors = sortDiagnostics(errors);
  const sortedWarnings = sortDiagnostics(warnings);
  const lines = [
    ...sortedErrors.map((diagnostic) => `${pc.red('error')}   ${formatDiagnostic(diagnostic)}`),
    ...sortedWarnings.map((diagnostic) => `${pc.yellow('warning')} ${formatDiagnostic(diagnostic)}`),
  ];
  if (lines.length > 0) lines.push('');
  if (errors.length > 0) {
    lines.push(pc.red(`${plural(errors.length, 'error')}, ${plural(warnings.length, 'warning')}.`));
  } else {
    const loops = configuredLoops.length > 0 ? configuredLoops.join(', ') : 'none detected';
    lines.push(pc.green(`Configuration is valid${warnings.length > 0 ? ` (${plural(warnings.length, 'warning')})` : ''}. Loops: ${loops}.`));
  }
  return {
    exitCode: errors.length > 0 ? ExitCode.configError : ExitCode.ok,
    json: { root: io.cwd, configuredLoops, files, errors: sortedErrors, warnings: sortedWarnings },
    text: lines.join('\n'),
  };
}
