/**
 * The real `loop-audit` readiness score (`@cobusgreyling/loop-audit`), used
 * as evidence for a promotion. Optional at runtime: it is a devDependency of
 * loop-runtime, so a project that did not install it gets `null` and a note
 * saying how — and, because no evidence is not a pass, no recommendation.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import type { AuditEvidence } from '../../core/outcomes/index.js';

export type AuditResult = { ok: true; audit: AuditEvidence } | { ok: false; note: string };

/** Where loop-audit's CLI is, resolved from the project first, then from loop-runtime itself; null when absent. */
export function findLoopAudit(root: string): string | null {
  for (const from of [join(root, 'package.json'), import.meta.url]) {
    try {
      const manifest = createRequire(from).resolve('@cobusgreyling/loop-audit/package.json');
      return join(dirname(manifest), 'dist', 'cli.js');
    } catch {
      // not installed there
    }
  }
  return null;
}

/** Runs `loop-audit <root> --json` (exit 0 and 2 both carry a score) and reads its score and level. */
export async function runLoopAudit(root: string, env: Record<string, string | undefined>): Promise<AuditResult> {
  const cli = findLoopAudit(root);
  if (!cli) return { ok: false, note: 'loop-audit is not installed; to fix: npm install --save-dev @cobusgreyling/loop-audit' };
  const result = await execa(process.execPath, [cli, root, '--json'], { cwd: root, env: { PATH: env.PATH ?? '', HOME: env.HOME ?? '', NO_COLOR: '1' }, extendEnv: false, reject: false, timeout: 60_000 });
  try {
    const report = JSON.parse(String(result.stdout)) as { score?: unknown; level?: unknown };
    if (typeof report.score !== 'number') throw new Error('no score');
    return { ok: true, audit: { score: report.score, level: typeof report.level === 'string' ? report.level : 'unknown' } };
  } catch {
    return { ok: false, note: `loop-audit exited ${result.exitCode ?? result.signal} without a JSON score: ${String(result.stderr).trim().slice(-200)}` };
  }
}
