/**
 * `loop-runtime doctor`: per configured loop, the backend it will use and
 * why, whether its CLI is installed (and which version), whether its
 * credentials variable is set (never its value), and whether the sandbox
 * works — each problem with its fix. Exit 0 when every loop has what it
 * needs, 3 otherwise.
 */
import pc from 'picocolors';
import { ExitCode } from '../../core/errors.js';
import type { DoctorCheck, DoctorReport } from '../../use-cases/doctor.js';
import type { CommandContext, CommandOutput } from '../command.js';
import { openCliRuntime } from '../open.js';

function checkLine(check: DoctorCheck): string[] {
  const mark = check.ok ? pc.green('ok  ') : check.required ? pc.red('FAIL') : pc.yellow('warn');
  return [`    ${mark} ${check.check.padEnd(11)} ${check.detail}`, ...(!check.ok && check.fix ? [`         ${' '.repeat(11)} To fix: ${check.fix}`] : [])];
}

export function renderDoctor(report: DoctorReport): string {
  const problems = report.loops.flatMap((loop) => loop.checks.filter((check) => !check.ok && check.required));
  return [
    `loop-runtime doctor in ${report.root}:`,
    ...(report.loops.length === 0 ? ['  no configured loops — run `loop-runtime list` to see the catalogue'] : []),
    ...report.loops.flatMap((loop) => [`  ${pc.bold(loop.id)} [${loop.level}] → ${loop.backend ?? pc.yellow('no backend')}`, ...loop.checks.flatMap(checkLine)]),
    report.ok ? pc.green('Everything the configured loops need is here.') : pc.red(`${problems.length} problem(s): the loops above marked FAIL cannot run until fixed.`),
  ].join('\n');
}

export async function doctorCommand({ io }: CommandContext): Promise<CommandOutput> {
  const opened = await openCliRuntime(io);
  if (!opened.ok) return opened.output;
  const report = await opened.runtime.doctor();
  return { exitCode: report.ok ? ExitCode.ok : ExitCode.configError, json: report, text: renderDoctor(report) };
}
