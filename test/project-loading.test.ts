/**
 * Project loading end to end, against real temporary repositories: the
 * catalogue, settings layers, level precedence, loop detection, diagnostics
 * from several files at once, instructions, and the list/plan/validate CLI.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { formatDiagnostic } from '../src/core/config/diagnostics.js';
import { loadRegistry } from '../src/core/config/load-registry.js';
import { loadInstructions } from '../src/project/load-instructions.js';
import { findPackageRoot, loadProject, resolvePlan } from '../src/project/load-project.js';
import type { LoadedProject } from '../src/project/load-project.js';
import { detectConfiguredLoops } from '../src/project/project-detect.js';
import { cliEnvelope, cliJson } from './cli-json.js';

const packageRoot = findPackageRoot();
let scratch: string;
let counter = 0;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'project-loading-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function repo(files: Record<string, string>): Promise<string> {
  counter += 1;
  const root = join(scratch, `repo-${counter}`);
  await mkdir(root, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, name)), { recursive: true });
    await writeFile(join(root, name), text);
  }
  return root;
}

async function load(root: string): Promise<LoadedProject> {
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(loaded.issues.map(formatDiagnostic).join('\n'));
  return loaded.project;
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), env: { NO_COLOR: '1' }, isTTY: false });
  return { code, stdout, stderr };
}

describe('our catalogue', () => {
  it('matches the published catalogue\'s facts for every published pattern', async () => {
    const published = JSON.parse(await readFile(join(packageRoot, 'node_modules/@cobusgreyling/loop-cost/registry.json'), 'utf8')) as { patterns: Array<Record<string, unknown>> };
    const ours = loadRegistry(await readFile(join(packageRoot, 'registry.yaml'), 'utf8'));
    if (!ours.ok) throw new Error(ours.issues.map(formatDiagnostic).join('\n'));
    expect(ours.warnings).toEqual([]);
    expect(published.patterns.length).toBe(7);
    for (const theirs of published.patterns) {
      const mine = ours.value.patterns.find((pattern) => pattern.id === theirs.id);
      expect(mine, String(theirs.id)).toBeDefined();
      for (const key of ['id', 'name', 'file', 'cadence', 'risk', 'state', 'week_one_mode', 'token_cost', 'cost']) {
        expect(mine?.[key as keyof typeof mine], `${String(theirs.id)}.${key}`).toEqual(theirs[key]);
      }
    }
    expect(ours.value.patterns.find((pattern) => pattern.id === 'issue-pr-repair')).toMatchObject({
      cadence: '6h', week_one_mode: 'L2', state: 'issue-pr-repair-state.md', risk: 'medium', cost: { suggested_daily_cap: 750_000 },
    });
    expect(ours.value.patterns.find((pattern) => pattern.id === 'thin-loop')).toMatchObject({
      cadence: '1h', week_one_mode: 'L1', state: 'STATE.md', risk: 'low', cost: { suggested_daily_cap: 20_000 },
    });
  });

  it('has a 40-90 line document with the required sections for every pattern', async () => {
    const ours = loadRegistry(await readFile(join(packageRoot, 'registry.yaml'), 'utf8'));
    if (!ours.ok) throw new Error('catalogue invalid');
    expect(ours.value.patterns).toHaveLength(9);
    for (const pattern of ours.value.patterns) {
      const text = await readFile(join(packageRoot, 'patterns', pattern.file), 'utf8');
      const lines = text.trimEnd().split('\n').length;
      expect(lines, pattern.file).toBeGreaterThanOrEqual(40);
      expect(lines, pattern.file).toBeLessThanOrEqual(90);
      for (const section of ['## Goal', '## When to use it', '## Phases', '## What triage looks for', '## What counts as a small safe fix', '## Human gates', '## Early exit', '## Kill switch']) {
        expect(text, `${pattern.file} ${section}`).toContain(section);
      }
      expect(text).toContain(`\`${pattern.cadence}\``);
    }
  });
});

describe('loadProject', () => {
  it('merges the project registry over the catalogue and treats its ids as the configured loops', async () => {
    const registry = (await readFile(join(packageRoot, 'registry.yaml'), 'utf8')).replace('cadence: 1d-2h', 'cadence: 12h');
    const custom = `  - id: docs-gardener
    name: Docs Gardener
    file: docs-gardener.md
    goal: Keep the documentation in step with the code
    cadence: 1d
    risk: low
    tools: [claude-code]
    skills: [docs-scan]
    state: docs-state.md
    phases: [scan, fix]
    human_gates: [rewrites]
`;
    const dailyOnly = registry.slice(0, registry.indexOf('  - id: issue-pr-repair')) + registry.slice(registry.indexOf('  - id: daily-triage'), registry.indexOf('  - id: ci-sweeper'));
    const project = await load(await repo({ 'registry.yaml': dailyOnly + custom }));
    expect(project.patternSource['daily-triage']).toBe('project');
    expect(project.patternSource['ci-sweeper']).toBe('catalogue');
    expect(project.patternSource['docs-gardener']).toBe('project');
    expect(project.patterns.find((pattern) => pattern.id === 'daily-triage')?.cadence).toBe('12h');
    expect(project.patterns.at(-1)?.id).toBe('docs-gardener');
    expect(project.configuredLoops).toEqual(['daily-triage', 'docs-gardener']);
    const resolved = await resolvePlan(project, 'docs-gardener');
    expect(resolved.ok && resolved.plan).toMatchObject({ level: 'L1', levelSource: 'default', dailyTokenCap: 100_000, budget: { capSource: 'default' } });
  });

  it('reports every problem in every file at once, with LOOP.md line numbers', async () => {
    const root = await repo({
      'registry.yaml': [
        'patterns:',
        '  - id: daily-triage',
        '    name: Daily Triage',
        '    file: daily-triage.md',
        '    goal: A prioritized morning scan',
        '    cadence: every day',
        '    risk: low',
        '    tools: [claude-code]',
        '    skills: []',
        '    state: STATE.md',
        '    phases: [report, escalate]',
        '    human_gates: [design-decisions]',
        '    token_cost: cheap',
        '    owner: me',
        '',
      ].join('\n'),
      'LOOP.md': ['---', 'title: Loops', 'loop-runtime:', '  level: L2', '  loops:', '    daily-triage:', '      maxAttemps: 2', '---', '# Loops', ''].join('\n'),
      'gate.yaml': 'version: 1\ndenylist: [".env"]\nmaxFiles: many\n',
    });
    const loaded = await loadProject(root);
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.issues.map(formatDiagnostic)).toEqual([
      'registry.yaml:6:5 patterns[0].cadence: "every day" is not a cadence. To fix: use 30m, 6h, 1d or a range like 5m-15m.',
      'registry.yaml:9:5 patterns[0].skills: needs at least 1 item, found 0. To fix: list at least 1 item under "skills".',
      'registry.yaml:13:5 patterns[0].token_cost: "cheap" is not one of low, medium, high, very-high. To fix: use one of: low, medium, high, very-high.',
      'LOOP.md:7:7 loop-runtime.loops.daily-triage.maxAttemps: "maxAttemps" is not a known setting. To fix: did you mean "maxAttempts"? Rename it, or remove it.',
      'gate.yaml:3:1 maxFiles: expected a number, found "many". To fix: give "maxFiles" a number.',
    ]);
    expect(loaded.warnings.map((warning) => `${warning.file}:${warning.line}:${warning.column} ${warning.path}`)).toEqual(['registry.yaml:14:5 patterns[0].owner']);
  });

  it('keeps a broken ledger or budget table from blocking a run: they are warnings', async () => {
    const root = await repo({ 'loop-ledger.json': '{ "pattern": ', 'loop-budget.md': '## Daily limits\n\n| Loop | Max tokens/day |\n|---|---|\n| Daily Triage | plenty |\n' });
    const loaded = await loadProject(root);
    expect(loaded.ok).toBe(true);
    expect(loaded.warnings.map((warning) => warning.file).sort()).toEqual(['loop-budget.md', 'loop-ledger.json']);
    expect(loaded.warnings.every((warning) => warning.severity === 'warning')).toBe(true);
  });
});

describe('resolvePlan', () => {
  const layered = {
    'LOOP.md': [
      '---',
      'loop-runtime:',
      '  level: L2',
      '  backend: claude-code',
      '  verify: ["npm test"]',
      '  delivery: { remote: upstream }',
      '  loops:',
      '    ci-sweeper:',
      '      level: L3',
      '      maxAttempts: 2',
      '      delivery: { mode: push }',
      '---',
      '| Pattern | Cadence |',
      '|---|---|',
      '| CI Sweeper | 5m |',
      '',
    ].join('\n'),
    'loops/ci-sweeper/LOOP.md': '---\nloop-runtime:\n  maxAttempts: 1\n  verify: ["make ci"]\n---\nCI notes for the agent.\n',
    'loop-ledger.json': '{"pattern": "dependency-sweeper", "level": "L3", "attempts": []}',
    'loop-budget.md': '## Daily limits\n\n| Loop | Max runs/day | Max tokens/day |\n|---|---|---|\n| CI Sweeper | 96 | 300k |\n',
  };

  it('merges root → loops.<id> → loops/<id>/LOOP.md → CLI, later layers winning', async () => {
    const project = await load(await repo(layered));
    const resolved = await resolvePlan(project, 'ci-sweeper', { backend: 'mock' });
    if (!resolved.ok) throw new Error('expected ok');
    expect(resolved.plan).toMatchObject({
      level: 'L3',
      levelSource: 'front-matter',
      attempts: { maxPerItem: 1 },
      backend: { name: 'mock' },
      phases: { verify: { commands: [{ command: 'make ci', timeoutMs: 600_000 }] } },
      delivery: { mode: 'push', remote: 'upstream' },
      dailyTokenCap: 300_000,
      budget: { capSource: 'loop-budget.md (CI Sweeper)' },
    });
    expect(project.configuredLoops).toEqual(['ci-sweeper', 'dependency-sweeper']);
  });

  it('takes the level from the CLI, then settings, then the ledger, then week_one_mode', async () => {
    const project = await load(await repo(layered));
    const level = async (id: string, cliLevel?: 'L0') => {
      const resolved = await resolvePlan(project, id, cliLevel ? { level: cliLevel } : {});
      if (!resolved.ok) throw new Error('expected ok');
      return `${resolved.plan.level} ${resolved.plan.levelSource}`;
    };
    expect(await level('ci-sweeper', 'L0')).toBe('L0 cli');
    expect(await level('daily-triage')).toBe('L2 front-matter');
    const bare = await load(await repo({ 'loop-ledger.json': layered['loop-ledger.json'] }));
    const fromLedger = await resolvePlan(bare, 'dependency-sweeper');
    expect(fromLedger.ok && `${fromLedger.plan.level} ${fromLedger.plan.levelSource}`).toBe('L3 ledger');
    const fromWeekOne = await resolvePlan(bare, 'ci-sweeper');
    expect(fromWeekOne.ok && `${fromWeekOne.plan.level} ${fromWeekOne.plan.levelSource}`).toBe('L2 week-one-mode');
  });

  it('names the known ids when the pattern does not exist', async () => {
    const project = await load(await repo({}));
    const resolved = await resolvePlan(project, 'nightly-build');
    expect(resolved.ok).toBe(false);
    if (resolved.ok) return;
    expect(resolved.issues[0]?.code).toBe('PATTERN_NOT_FOUND');
    expect(formatDiagnostic(resolved.issues[0]!)).toContain('there is no loop pattern with id "nightly-build". To fix: use one of: issue-pr-repair, pr-babysitter, daily-triage');
    // A near miss names the loop it probably meant, as a misspelt key does.
    const typo = await resolvePlan(project, 'ci-sweepr');
    expect(!typo.ok && formatDiagnostic(typo.issues[0]!)).toContain('there is no loop pattern with id "ci-sweepr". Did you mean "ci-sweeper"? To fix: run it as "ci-sweeper"');
  });
});

describe('loop detection', () => {
  it('counts declarations (table rows, Pattern: lines, headings) over passing mentions', async () => {
    const patterns = (await load(await repo({}))).patterns;
    const detect = (loopMd: string) =>
      detectConfiguredLoops({ patterns, registryIds: null, loopMd, settingsIds: [], existingStateFiles: new Set(), ledgerPattern: null, budgetPrimaryLoop: null });
    expect(detect('# LOOP.md — Thin loop\n\n- **Pattern:** thin-loop\n\nGraduate to Daily Triage later.\n')).toEqual(['thin-loop']);
    expect(detect('| Pattern | Cadence |\n|---|---|\n| Issue Triage | 2h |\n\nA feeder for Daily Triage.\n')).toEqual(['issue-triage']);
    expect(detect('We run ci sweeper and the PR Babysitter.\n')).toEqual(['pr-babysitter', 'ci-sweeper']);
  });

  it('uses state files, the ledger and the budget\'s primary loop when LOOP.md is absent', async () => {
    const project = await load(await repo({ 'post-merge-state.md': '# state\n', 'loop-ledger.json': '{"pattern":"ci-sweeper","attempts":[]}', 'loop-budget.md': '> Primary loop: **Changelog Drafter** (scaffolded)\n' }));
    expect(project.configuredLoops).toEqual(['ci-sweeper', 'post-merge-cleanup', 'changelog-drafter']);
  });
});

describe('loadInstructions', () => {
  it('collects the pattern document, LOOP.md prose, AGENTS.md, CLAUDE.md and one copy of each skill', async () => {
    const root = await repo({
      'patterns/daily-triage.md': '# Our own daily triage\n',
      'LOOP.md': '---\nloop-runtime:\n  level: L1\n---\n# Loops\n',
      'AGENTS.md': '# Agents\n',
      'CLAUDE.md': '# Claude\n',
      '.claude/skills/loop-triage/SKILL.md': 'claude triage skill',
      '.grok/skills/loop-triage/SKILL.md': 'grok triage skill',
      'skills/minimal-fix/SKILL.md': 'opencode minimal fix',
      '.claude/skills/unrelated/SKILL.md': 'not for this pattern',
    });
    const documents = await loadInstructions(await load(root), 'daily-triage');
    expect(documents).toEqual([
      { name: 'patterns/daily-triage.md', text: '# Our own daily triage\n' },
      { name: 'LOOP.md', text: '# Loops\n' },
      { name: 'AGENTS.md', text: '# Agents\n' },
      { name: 'CLAUDE.md', text: '# Claude\n' },
      { name: '.claude/skills/loop-triage/SKILL.md', text: 'claude triage skill' },
      { name: 'skills/minimal-fix/SKILL.md', text: 'opencode minimal fix' },
    ]);
    const fallback = await loadInstructions(await load(await repo({})), 'ci-sweeper');
    expect(fallback.map((document) => document.name)).toEqual(['patterns/ci-sweeper.md']);
    expect(fallback[0]?.text).toContain('# CI Sweeper');
  });
});

describe('CLI: list, plan, validate', () => {
  it('validate exits 0 with warnings only, and 3 listing every error', async () => {
    const good = await repo({ 'STATE.md': '# State\n', 'gate.yaml': 'version: 1\ndenylist: []\nextra: 1\n' });
    const ok = await cli(['validate', '--cwd', good]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('warning gate.yaml:3:1 extra: unknown field "extra"');
    expect(ok.stdout).toContain('Configuration is valid (1 warning). Loops: daily-triage.');

    const bad = await repo({ 'LOOP.md': '---\nloop-runtime:\n  levle: L2\n---\n', 'gate.yaml': 'version: 3\ndenylist: []\n' });
    const failed = await cli(['validate', '--cwd', bad]);
    expect(failed.code).toBe(3);
    expect(failed.stdout).toContain('error   LOOP.md:3:3 loop-runtime.levle: "levle" is not a known setting. To fix: did you mean "level"?');
    expect(failed.stdout).toContain('error   gate.yaml:1:1 version: must be 1, found 3.');
    expect(failed.stdout).toContain('2 errors, 0 warnings.');
    const printed = (await cli(['validate', '--cwd', bad, '--json'])).stdout;
    expect(cliEnvelope(printed)).toMatchObject({ ok: false, command: 'validate', error: { code: 'CONFIG_ERROR' } });
    expect((cliJson(printed) as { errors: unknown[] }).errors).toHaveLength(2);
  });

  it('a --cwd that does not exist, or a directory with nothing to validate, is a config error (exit 3), never "no loops"', async () => {
    for (const argv of [['status'], ['run', '--due'], ['inbox'], ['validate']]) {
      const result = await cli([...argv, '--cwd', '/nonexistent/loop-runtime-typo']);
      expect({ argv, code: result.code }).toEqual({ argv, code: 3 });
      const printed = argv[0] === 'validate' ? result.stdout : result.stderr;
      expect(printed).toContain('/nonexistent/loop-runtime-typo: does not exist, so there is no repository to run loops in. To fix: pass the repository root with --cwd');
    }
    const empty = await repo({});
    const validated = await cli(['validate', '--cwd', empty]);
    expect(validated.code).toBe(3);
    expect(validated.stdout).toContain('holds no loop configuration');
  });

  it('plan --json prints exactly the resolved plan; plan renders it for humans', async () => {
    const root = await repo({ 'STATE.md': '# State\n' });
    const resolved = await resolvePlan(await load(root), 'daily-triage', { level: 'L2', backend: 'claude-code' });
    const printed = await cli(['plan', 'daily-triage', '--level', 'L2', '--backend', 'claude-code', '--json', '--cwd', root]);
    expect(printed.code).toBe(0);
    expect(cliJson(printed.stdout)).toEqual(resolved.ok && resolved.plan);
    const human = await cli(['plan', 'daily-triage', '--level', 'l3', '--cwd', root]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('level       L3 (from cli)');
    // L3 allows merges, but nothing merges until delivery.autoMerge is on: the plan says exactly that.
    expect(human.stdout).toMatch(/merge off \(L3 allows it; delivery.autoMerge is off\)/);
    expect((await cli(['plan', 'nope', '--cwd', root])).code).toBe(3);
    expect((await cli(['plan', 'daily-triage', '--level', 'L7', '--cwd', root])).code).toBe(3);
  });

  it('list shows configured loops and the catalogue with level, cap and source', async () => {
    const root = await repo({ 'ci-sweeper-state.md': '# CI\n' });
    const listed = await cli(['list', '--json', '--cwd', root]);
    expect(listed.code).toBe(0);
    const json = cliJson(listed.stdout) as { configured: string[]; loops: Array<Record<string, unknown>> };
    expect(json.configured).toEqual(['ci-sweeper']);
    expect(json.loops).toHaveLength(9);
    expect(json.loops.find((loop) => loop.id === 'ci-sweeper')).toMatchObject({ cadence: '5m-15m', level: 'L2', dailyTokenCap: 1_000_000, source: 'catalogue', configured: true });
    const human = await cli(['list', '--cwd', root]);
    expect(human.stdout).toMatch(/Configured loops in .*\n\s+ci-sweeper\s+CI Sweeper\s+5m-15m\s+L2 \(week-one-mode\)\s+1M\/day\s+catalogue/);
  });
});
