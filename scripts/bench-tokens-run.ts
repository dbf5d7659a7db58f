/**
 * The token bench's measuring side (run by scripts/bench-tokens.js under
 * vite-node, since the fakes are TypeScript): for every catalogue pattern, a
 * real L2 tick (loadProject → resolvePlan → createLoopRuntime → engine.tick)
 * in a repository scaffolded by the real loop-init, once through the real
 * `claude` CLI against the fake Anthropic Messages API and once through the
 * OpenAI tool loop (official SDK) against the fake OpenAI server. The fakes
 * meter every request body (test/fakes/token-meter.ts). Then a quiet tick per
 * pattern: do its probes decide without a model call? Prints one JSON object.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProject, resolvePlan } from '../src/project/load-project.js';
import { createLoopRuntime } from '../src/composition/create-runtime.js';
import { startFakeAnthropicServer } from '../test/fakes/fake-anthropic-server.js';
import { startFakeOpenAIServer } from '../test/fakes/fake-openai-server.js';
import { TokenMeter, type MeteredCall, type MeteredRole } from '../test/fakes/token-meter.js';
import { BUGGY_ADD_PROJECT, CLAUDE, loopMarkdown, PACKAGE_ROOT } from '../test/e2e-fixtures.js';
import { GIT_ENV } from '../test/git-fixtures.js';
import { anthropicReply, openAIReply, type TriageMode } from './bench-tokens-replies.js';

type BackendName = 'claude-code' | 'openai';
const LOOP_INIT = join(PACKAGE_ROOT, 'node_modules', '.bin', 'loop-init');
/** Commits older than post-merge-cleanup's 26-hour window: a quiet repository has no recent merges. */
const OLD_DATE = '2026-01-01T08:00:00Z';

export interface PhaseTokens {
  calls: number;
  input: number;
  output: number;
  /** Input tokens in a prefix shared with the loop's previous call. */
  shared: number;
  /** The same for the phase's first call only (the role boundary). */
  firstCallInput: number;
  firstCallShared: number;
  cacheMarks: number;
}

export interface TickMeasure {
  pattern: string;
  backend: BackendName;
  outcome: string;
  phases: Partial<Record<MeteredRole, PhaseTokens>>;
  /** Instruction documents the runtime loaded, with their size in the same approximation. */
  documents: Array<{ name: string; tokens: number }>;
}

export interface QuietMeasure {
  pattern: string;
  outcome: string;
  modelCalls: number;
  tokens: number;
  probes: string[];
}

function sh(cwd: string, command: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync(command, args, { cwd, env: { ...process.env, ...GIT_ENV, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A git repository scaffolded by the real loop-init for the pattern (Claude layout), plus the buggy-add project. */
async function scaffold(patternId: string, settings: Record<string, unknown>, quiet: boolean): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), `loop-bench-${patternId}-`));
  sh(root, 'git', ['init', '--quiet', '--initial-branch=main']);
  try {
    sh(root, LOOP_INIT, ['.', '--pattern', patternId, '--tool', 'claude']);
  } catch {
    // loop-init has no scaffold for this pattern (issue-pr-repair): its skills come from the daily-triage one.
    sh(root, LOOP_INIT, ['.', '--pattern', 'daily-triage', '--tool', 'claude']);
  }
  const files: Record<string, string> = {
    ...BUGGY_ADD_PROJECT,
    // An action tick turns the probes off so triage always runs; a quiet tick keeps the pattern's default probes.
    'LOOP.md': loopMarkdown({ loops: { [patternId]: quiet ? {} : { probes: [] } }, ...settings }),
    // Many repositories keep CLAUDE.md as a copy of AGENTS.md for tools that read only one of them.
    'CLAUDE.md': await readFile(join(root, 'AGENTS.md'), 'utf8').catch(() => '# Agents\n\nRun `node --test test/` before you finish.\n'),
    // No dependencies: `npm outdated` has nothing to report, offline.
    'package.json': JSON.stringify({ name: 'bench-demo', version: '0.1.0', private: true, type: 'module' }, null, 2) + '\n',
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  const dated: Record<string, string> = quiet ? { GIT_AUTHOR_DATE: OLD_DATE, GIT_COMMITTER_DATE: OLD_DATE } : {};
  sh(root, 'git', ['add', '--all']);
  sh(root, 'git', ['commit', '--quiet', '-m', 'initial'], dated);
  if (quiet) sh(root, 'git', ['tag', 'v0.1.0'], dated);
  return root;
}

function summarize(calls: readonly MeteredCall[]): Partial<Record<MeteredRole, PhaseTokens>> {
  const phases: Partial<Record<MeteredRole, PhaseTokens>> = {};
  for (const call of calls) {
    let phase = phases[call.role];
    if (!phase) {
      phase = phases[call.role] = { calls: 0, input: 0, output: 0, shared: 0, firstCallInput: call.inputTokens, firstCallShared: call.sharedPrefixTokens, cacheMarks: 0 };
    }
    phase.calls++;
    phase.input += call.inputTokens;
    phase.output += call.outputTokens;
    phase.shared += call.sharedPrefixTokens;
    phase.cacheMarks += call.cacheMarks;
  }
  return phases;
}

async function tick(root: string, patternId: string, env: Record<string, string | undefined>): Promise<{ outcome: string; documents: Array<{ name: string; tokens: number }> }> {
  const loaded = await loadProject(root);
  if (!loaded.ok) throw new Error(`${patternId}: ${JSON.stringify(loaded.issues)}`);
  const resolved = await resolvePlan(loaded.project, patternId, { level: 'L2' });
  if (!resolved.ok) throw new Error(`${patternId}: ${JSON.stringify(resolved.issues)}`);
  const runtime = await createLoopRuntime(loaded.project, resolved.plan, { dryRun: false, env });
  try {
    const documents = (runtime.ports.instructions ?? []).map((document) => ({ name: document.name, tokens: Math.ceil(document.text.length / 4) }));
    const result = await runtime.engine.tick();
    return { outcome: result.kind === 'failed' ? `failed: ${result.message.slice(0, 160)}` : result.kind, documents };
  } finally {
    await runtime.close();
  }
}

/** A `gh` that answers every list with an empty JSON array: a repository with no failing runs, PRs or issues. */
async function quietGh(): Promise<string> {
  const bin = await mkdtemp(join(tmpdir(), 'loop-bench-gh-'));
  await writeFile(join(bin, 'gh'), '#!/bin/sh\necho "[]"\n');
  await chmod(join(bin, 'gh'), 0o755);
  return bin;
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const registry = (await import('yaml')).parse(await readFile(join(PACKAGE_ROOT, 'registry.yaml'), 'utf8')) as {
    patterns: Array<{ id: string }>;
  };
  const patterns = registry.patterns.map((pattern) => pattern.id).filter((id) => only.length === 0 || only.includes(id));
  const meter = new TokenMeter();
  let triage: TriageMode = 'act';
  const forever = <T>(reply: T) => Array.from({ length: 10_000 }, () => reply);
  const anthropic = await startFakeAnthropicServer(forever((request) => anthropicReply(request, triage)), { meter });
  const openai = await startFakeOpenAIServer(forever((request) => openAIReply(request, triage)), { meter });
  const home = await mkdtemp(join(tmpdir(), 'loop-bench-claude-home-'));
  Object.assign(process.env, {
    ANTHROPIC_BASE_URL: anthropic.url,
    ANTHROPIC_API_KEY: 'dummy',
    CLAUDE_CODE_MAX_RETRIES: '0',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });
  const backends: Record<BackendName, Record<string, unknown>> = {
    'claude-code': { backend: 'claude-code', backendOptions: { binary: CLAUDE, home, maxRetries: 0, maxTurns: 8, timeoutMs: 60_000, killGraceMs: 500 } },
    openai: { backend: 'openai', model: 'gpt-4o-mini', backendOptions: { baseURL: `${openai.url}/v1`, apiKey: 'test-key' } },
  };
  const ticks: TickMeasure[] = [];
  const quiet: QuietMeasure[] = [];
  const roots: string[] = [home];
  try {
    for (const backend of ['claude-code', 'openai'] as const) {
      for (const pattern of patterns) {
        triage = 'act';
        const root = await scaffold(pattern, { ...backends[backend], verify: ['node --test test/'] }, false);
        roots.push(root);
        meter.reset();
        const { outcome, documents } = await tick(root, pattern, { ...process.env, PATH: process.env['PATH'] });
        ticks.push({ pattern, backend, outcome, phases: summarize(meter.calls), documents });
        const dump = process.env['LOOP_BENCH_DUMP'];
        if (dump) {
          const server = backend === 'openai' ? openai : anthropic;
          await writeFile(join(dump, `${backend}-${pattern}.json`), JSON.stringify(server.requests.map((request) => request.body), null, 1));
          server.requests.length = 0;
        }
      }
    }
    const gh = await quietGh();
    roots.push(gh);
    for (const pattern of patterns) {
      triage = 'quiet';
      const root = await scaffold(pattern, { ...backends.openai, verify: ['node --test test/'] }, true);
      roots.push(root);
      meter.reset();
      const loaded = await loadProject(root);
      const resolved = loaded.ok ? await resolvePlan(loaded.project, pattern, { level: 'L2' }) : null;
      const probes = resolved?.ok ? resolved.plan.earlyExit.probes.map((probe) => probe.name) : [];
      const { outcome } = await tick(root, pattern, { ...process.env, PATH: `${gh}:${process.env['PATH']}` });
      const tokens = meter.calls.reduce((sum, call) => sum + call.inputTokens + call.outputTokens, 0);
      quiet.push({ pattern, outcome, modelCalls: meter.calls.length, tokens, probes });
    }
  } finally {
    await anthropic.close();
    await openai.close();
    for (const root of roots) await rm(root, { recursive: true, force: true });
  }
  process.stdout.write(`${JSON.stringify({ charsPerToken: 4, ticks, quiet })}\n`);
}

await main();
