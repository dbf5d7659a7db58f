/**
 * loop-runtime must drop into any repository the real loop-init scaffolds,
 * with no new config: every pattern × every tool loads with zero errors, the
 * scaffolded loop is detected, and its plan resolves with the right state file.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../src/core/config/diagnostics.js';
import { loadInstructions } from '../src/project/load-instructions.js';
import { findPackageRoot, loadProject, resolvePlan } from '../src/project/load-project.js';

const run = promisify(execFile);
const packageRoot = findPackageRoot();
const loopInit = join(packageRoot, 'node_modules', '.bin', 'loop-init');

const PATTERNS = {
  'daily-triage': 'STATE.md',
  'pr-babysitter': 'pr-babysitter-state.md',
  'ci-sweeper': 'ci-sweeper-state.md',
  'dependency-sweeper': 'dependency-sweeper-state.md',
  'post-merge-cleanup': 'post-merge-state.md',
  'changelog-drafter': 'changelog-drafter-state.md',
  'issue-triage': 'issue-triage-state.md',
  'thin-loop': 'STATE.md',
} as const;
const TOOLS = ['claude', 'codex', 'grok', 'opencode'] as const;
const cases = Object.keys(PATTERNS).flatMap((pattern) => TOOLS.map((tool) => ({ pattern: pattern as keyof typeof PATTERNS, tool })));

let scratch: string;
const repoFor = (pattern: string, tool: string) => join(scratch, `${pattern}-${tool}`);

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'loop-init-compat-'));
  await Promise.all(
    cases.map(async ({ pattern, tool }) => {
      const repo = repoFor(pattern, tool);
      await run('git', ['init', '-q', repo]);
      await run(loopInit, [repo, '--pattern', pattern, '--tool', tool], { env: { ...process.env, NO_COLOR: '1' } });
    }),
  );
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('repositories scaffolded by loop-init', () => {
  it.each(cases)('$pattern with --tool $tool loads, is detected and plans', async ({ pattern, tool }) => {
    const repo = repoFor(pattern, tool);
    const loaded = await loadProject(repo);
    if (!loaded.ok) throw new Error(loaded.issues.map(formatDiagnostic).join('\n'));
    expect(loaded.warnings.map(formatDiagnostic)).toEqual([]);
    expect(loaded.project.configuredLoops).toContain(pattern);

    const resolved = await resolvePlan(loaded.project, pattern);
    if (!resolved.ok) throw new Error(resolved.issues.map(formatDiagnostic).join('\n'));
    expect(resolved.plan.files.state).toBe(PATTERNS[pattern]);
    expect(resolved.plan.pattern.id).toBe(pattern);
    expect(resolved.plan.level).not.toBe('L0');
    // The agent loop-init scaffolded for comes first (it also drops one skill into the other agents' folders);
    // thin-loop scaffolds a workflow and no agent folder, so nothing names its tool.
    const first = { claude: 'claude-code', codex: 'codex', opencode: 'opencode', grok: undefined }[tool];
    if (first && pattern !== 'thin-loop' && resolved.plan.backend.name === 'auto') expect(resolved.plan.backend.candidates?.[0]?.backend).toBe(first);

    const documents = await loadInstructions(loaded.project, pattern);
    const names = documents.map((document) => document.name);
    expect(names[0]).toBe(`patterns/${pattern}.md`);
    if (pattern !== 'thin-loop') {
      expect(names.some((name) => name.endsWith('/SKILL.md'))).toBe(true);
    }
  });

  it('plans a loop-init budget cap from loop-budget.md and the ledger\'s level', async () => {
    const loaded = await loadProject(repoFor('ci-sweeper', 'claude'));
    if (!loaded.ok) throw new Error('expected ok');
    const resolved = await resolvePlan(loaded.project, 'ci-sweeper');
    if (!resolved.ok) throw new Error('expected ok');
    expect(resolved.plan).toMatchObject({ level: 'L2', levelSource: 'ledger', dailyTokenCap: 1_000_000, budget: { capSource: 'loop-budget.md (CI Sweeper)' } });
  });

  it('matches the golden plan for daily-triage at L2', async () => {
    const loaded = await loadProject(repoFor('daily-triage', 'claude'));
    if (!loaded.ok) throw new Error('expected ok');
    const resolved = await resolvePlan(loaded.project, 'daily-triage', { level: 'L2' });
    if (!resolved.ok) throw new Error('expected ok');
    await expect(`${JSON.stringify(resolved.plan, null, 2)}\n`).toMatchFileSnapshot('__snapshots__/daily-triage-L2.plan.json');
  });
});
