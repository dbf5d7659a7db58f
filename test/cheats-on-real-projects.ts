/**
 * The cheating catalogue on vendored real projects (test/fixtures/cheats/: inflection, go-humanize, heck), a
 * subset of what `npm run bench` runs (scripts/bench-verification-langs.js). Each repository has the item's bug
 * and an unrelated red test; every case is one engine tick with the real runner in bubblewrap. Per language:
 * the honest fix is committed although the unrelated test stays red (the allowed twin), and each cheat is kept
 * out, with the rule that caught it. A file's ticks share what ticks on one checkout share: the base result
 * (the baseline cache — every copy of the repository has the same base commit, so the honest tick, first, runs the
 * base and each cheat's tick reads it, as a second tick on an unchanged base does) and, for Go, the build cache (a
 * copy of the suite's warm one, test/go-build-cache-seed.ts; the base's run adds to it, each change's run reads a
 * throwaway copy), so no `go test` here compiles the standard library's test dependencies.
 *
 * This module holds the parts and the expectations; one test file per language (`cheats-<language>.test.ts`) runs
 * them, so the three run in parallel forks.
 */
import { afterAll, expect } from 'vitest';
import { BwrapRunner, detectSandbox } from '../src/adapters/command-runner/bwrap-runner.js';
import { fileBaselineCache } from '../src/adapters/workspace/git-baseline-cache.js';
import { GitWorkspace } from '../src/adapters/workspace/git-workspace.js';
import { LoopEngine } from '../src/core/engine/loop-engine.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import { detectVerifyCommands } from '../src/project/detect-verify.js';
import { createMemoryPorts } from '../src/testing/create-memory-ports.js';
import { ScriptedEditBackend } from '../src/testing/scripted-edit-backend.js';
import { LANGUAGES, languageTick, type Language } from '../scripts/bench-verification-langs.js';
import { dailyTriagePattern } from './fixtures/patterns.js';
import { cleanupTempDirs, tempDir } from './git-fixtures.js';
import { seededGoBuildCache } from './go-build-cache-seed.js';

/** Removes the repositories the ticks made, after the calling test file. */
export const useCheatCleanup = (): void => afterAll(cleanupTempDirs);
/** The catalogue runs only where bubblewrap does (`describe.runIf(hasBwrap)`). */
export const hasBwrap = (await detectSandbox()).kind === 'bwrap';
export const LONG = 600_000;
// One baseline cache per file's ticks, as ticks on one checkout share one.
const baselineCache = fileBaselineCache(await tempDir('cheats-baseline-'));
const parts = { LoopEngine, buildPlan, createMemoryPorts, ScriptedEditBackend, GitWorkspace, BwrapRunner, detectVerifyCommands, pattern: dailyTriagePattern, baselineCache };
const FROM_CACHE = /^base [0-9a-f]{12}: results from the cache/;

export const language = (name: Language['language']): Language => LANGUAGES.find((entry) => entry.language === name)!;
const cheat = (lang: Language, name: string) => {
  const entry = lang.cheats.find(([cheatName]) => cheatName === name);
  if (!entry) throw new Error(`no cheat named ${name} in the ${lang.language} catalogue`);
  return entry[1];
};

// One Go build cache per file's ticks, as ticks on one checkout share one (the base's run writes it, a change's run reads
// a copy); it starts as the suite's warm copy (the standard library compiled, as a checkout's cache is after its first
// tick), made on the first Go tick only.
let goBuildCache: Promise<string> | null = null;
const runnerSettings = async (lang: Language) => (lang.language === 'Go' ? { goBuildCache: await (goBuildCache ??= tempDir('cheats-go-cache-').then(seededGoBuildCache)) } : {});

export async function expectHonestCommitted(lang: Language) {
  const tick = await languageTick(parts, lang, lang.fix, undefined, await runnerSettings(lang));
  const text = tick.reasons.join('\n');
  expect(tick.committed, text).toBe(true);
  // First in its file: it runs the base itself and fills the cache the cheats' ticks read.
  expect(tick.steps.some((step) => FROM_CACHE.test(step)), tick.steps.join('\n')).toBe(false);
  expect(text).toMatch(new RegExp(`fail-to-pass .*${escape(`\`${lang.target}\``)}.* failed at the base and pass now`));
  expect(text).toMatch(new RegExp(`${escape(`\`${lang.unrelated}\``)}.* failed at the base and still fail — not what this item is about, so not blocking`));
}

export async function expectKeptOut(lang: Language, name: string, rule: string, testEdits?: 'allow') {
  const tick = await languageTick(parts, lang, cheat(lang, name), testEdits, await runnerSettings(lang));
  expect(tick.committed, `${name}: ${tick.reasons.join('\n')}`).toBe(false);
  expect(tick.rules, `${name}: ${tick.reasons.join('\n')}`).toContain(rule);
  expect(tick.steps.some((step) => FROM_CACHE.test(step)), `${name}: the base ran again\n${tick.steps.join('\n')}`).toBe(true);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
