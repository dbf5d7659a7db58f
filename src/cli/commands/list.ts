/**
 * `loop-runtime list`: the loops this repository has configured, then the
 * whole catalogue, each with cadence, resolved level, daily cap and where
 * the pattern came from.
 */
import pc from 'picocolors';
import { formatDiagnostic } from '../../core/config/diagnostics.js';
import type { Diagnostic } from '../../core/config/diagnostics.js';
import { ExitCode } from '../../core/errors.js';
import type { CommandContext, CommandOutput } from '../command.js';
// Static: this module is itself loaded by `import()` (commands/index.ts); an `import()` here cost a facade file.
import { loadProject, resolvePlans } from '../../project/load-project.js';

export interface ListedLoop {
  id: string;
  name: string;
  cadence: string;
  level: string;
  levelSource: string;
  dailyTokenCap: number;
  capSource: string;
  state: string;
  source: 'catalogue' | 'project';
  configured: boolean;
}

function tokens(value: number): string {
  if (value >= 1_000_000 && value % 100_000 === 0) return `${value / 1_000_000}M`;
  if (value >= 1_000 && value % 1_000 === 0) return `${value / 1_000}k`;
  return String(value);
}

function table(rows: readonly ListedLoop[]): string[] {
  const cells = rows.map((row) => [
    row.id,
    row.name,
    row.cadence,
    `${row.level} (${row.levelSource})`,
    `${tokens(row.dailyTokenCap)}/day`,
    row.source,
  ]);
  const widths = cells.reduce<number[]>((max, line) => line.map((cell, index) => Math.max(max[index] ?? 0, cell.length)), []);
  return cells.map((line) => `  ${line.map((cell, index) => (index === 0 ? pc.bold(cell.padEnd(widths[index] ?? 0)) : cell.padEnd(widths[index] ?? 0))).join('  ').trimEnd()}`);
}

function warningLines(warnings: readonly Diagnostic[]): string[] {
  return warnings.map((warning) => pc.yellow(`warning: ${formatDiagnostic(warning)}`));
}

/** Handler for `loop-runtime list`. */
export async function listCommand({ io }: CommandContext): Promise<CommandOutput> {
  const loaded = await loadProject(io.cwd);
  if (!loaded.ok) {
    return {
      exitCode: ExitCode.configError,
      json: { issues: loaded.issues, warnings: loaded.warnings },
      text: [...loaded.issues.map((issue) => pc.red(formatDiagnostic(issue))), ...warningLines(loaded.warnings)].join('\n'),
    };
  }
  const { project } = loaded;
  const loops: ListedLoop[] = [];
  const plans = await resolvePlans(project, project.patterns.map((pattern) => pattern.id));
  for (const pattern of project.patterns) {
    const resolved = plans.get(pattern.id);
    if (!resolved?.ok) continue;
    const { plan } = resolved;
    loops.push({
      id: pattern.id,
      name: pattern.name,
      cadence: pattern.cadence,
      level: plan.level,
      levelSource: plan.levelSource,
      dailyTokenCap: plan.dailyTokenCap,
      capSource: plan.budget.capSource,
      state: plan.files.state,
      source: project.patternSource[pattern.id] ?? 'catalogue',
      configured: project.configuredLoops.includes(pattern.id),
    });
  }
  const configured = loops.filter((loop) => loop.configured);
  const lines: string[] = [];
  if (configured.length > 0) {
    lines.push(pc.bold(`Configured loops in ${project.root}`), ...table(configured), '');
  } else {
    lines.push(pc.dim(`No loops configured in ${project.root}. Scaffold one with loop-init, e.g. \`npx @cobusgreyling/loop-init . --pattern daily-triage\`.`), '');
  }
  lines.push(pc.bold('Catalogue'), ...table(loops));
  if (loaded.warnings.length > 0) lines.push('', ...warningLines(loaded.warnings));
  return {
    exitCode: ExitCode.ok,
    json: { root: project.root, configured: project.configuredLoops, loops, warnings: loaded.warnings },
    text: lines.join('\n'),
  };
}
