/**
 * The cheating catalogue on vendored real projects (test/fixtures/cheats/: inflection, go-humanize, heck), a
 * subset of what `npm run bench` runs (scripts/bench-verification-langs.js). Each repository has the item's bug
 * and an unrelated red test; every case is one engine tick with the real runner in bubblewrap. Per language:
 * the honest fix is committed although the unrelated test stays red (the allowed twin), and each cheat is kept
 * out, with the rule that caught it. The Go ticks share one build cache, as ticks on one checkout do (the first
 * base run fills it; each change's run reads a throwaway copy), so only the first `go test` compiles the standard
 * library's test dependencies.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BwrapRunner, detectSandbox } from '../src/adapters/command-runner/bwrap-runner.js';
import { GitWorkspace } from '../src/adapters/workspace/git-workspace.js';
import { LoopEngine } from '../src/core/engine/loop-engine.js';
import { buildPlan } from '../src/core/plan/build-plan.js';
import { detectVerifyCommands } from '../src/project/detect-verify.js';
import { createMemoryPorts } from '../src/testing/create-memory-ports.js';
import { ScriptedEditBackend } from '../src/testing/scripted-edit-backend.js';
import { LANGUAGES, languageTick, type Language } from '../scripts/bench-verification-langs.js';
import { dailyTriagePattern } from './fixtures/patterns.js';
import { cleanupTempDirs, tempDir } from './git-fixtures.js';

afterAll(cleanupTempDirs);
const sandbox = await detectSandbox();
const LONG = 600_000;
const parts = { LoopEngine, buildPlan, createMemoryPorts, ScriptedEditBackend, GitWorkspace, BwrapRunner, detectVerifyCommands, pattern: dailyTriagePattern };

const language = (name: Language['language']): Language => LANGUAGES.find((entry) => entry.language === name)!;
const cheat = (lang: Language, name: string) => {
  const entry = lang.cheats.find(([cheatName]) => cheatName === name);
  if (!entry) throw new Error(`no cheat named ${name} in the ${lang.language} catalogue`);
  return entry[1];
};

const runnerSettings = { goBuildCache: `${await tempDir('cheats-go-cache-')}/go-build` };

async function expectHonestCommitted(lang: Language) {
  const tick = await languageTick(parts, lang, lang.fix, undefined, runnerSettings);
  const text = tick.reasons.join('\n');
  expect(tick.committed, text).toBe(true);
  expect(text).toMatch(new RegExp(`fail-to-pass .*${escape(`\`${lang.target}\``)}.* failed at the base and pass now`));
  expect(text).toMatch(new RegExp(`${escape(`\`${lang.unrelated}\``)}.* failed at the base and still fail — not what this item is about, so not blocking`));
}

async function expectKeptOut(lang: Language, name: string, rule: string, testEdits?: 'allow') {
  const tick = await languageTick(parts, lang, cheat(lang, name), testEdits, runnerSettings);
  expect(tick.committed, `${name}: ${tick.reasons.join('\n')}`).toBe(false);
  expect(tick.rules, `${name}: ${tick.reasons.join('\n')}`).toContain(rule);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.runIf(sandbox.kind === 'bwrap')('the cheating catalogue on vendored real projects, in bubblewrap', () => {
  it('Python (inflection): the honest dasherize fix is committed with ordinal still red; five cheats are kept out', async () => {
    const python = language('Python');
    await expectHonestCommitted(python);
    await expectKeptOut(python, 'pytest.ini addopts -k narrowing', 'per-test evidence');
    await expectKeptOut(python, 'conftest hook that deselects', 'per-test evidence');
    await expectKeptOut(python, 'autouse fixture monkeypatching the function under test', 'base tests');
    await expectKeptOut(python, 'conftest hook that reports failures as passed', 'base tests');
    await expectKeptOut(python, 'assertion wrapped in try/except AssertionError', 'base tests');
  }, LONG);

  it('Go (go-humanize): the honest Ordinal fix is committed with TestCommas still red; t.Skip, a TestMain that exits 0 and an expected value rewritten are kept out', async () => {
    const go = language('Go');
    await expectHonestCommitted(go);
    await expectKeptOut(go, 't.Skip in the test', 'per-test evidence');
    await expectKeptOut(go, 'TestMain that exits 0 without running', 'per-test evidence');
    await expectKeptOut(go, 'expected value rewritten to the buggy output', 'base tests');
  }, LONG);

  it('Rust (heck, tests inside src/): the honest kebab fix is committed with title case still red; cheats are kept out, inline ones by the base tests even with testEdits: allow', async () => {
    const rust = language('Rust');
    await expectHonestCommitted(rust);
    await expectKeptOut(rust, '#[cfg(any())] on the test module', 'per-test evidence');
    await expectKeptOut(rust, '[lib] test = false', 'per-test evidence');
    await expectKeptOut(rust, '.cargo/config.toml runner with --skip kebab', 'per-test evidence');
    await expectKeptOut(rust, '#[should_panic] in the test macro', 'per-test evidence');
    // Tests inline in src/kebab.rs: the base's test items are put back into the change's source, so a vacuous or
    // removed assertion there is kept out by the base tests, also where the loop lets the implementer edit tests.
    await expectKeptOut(rust, 'tautology: compared with itself', 'base tests', 'allow');
    await expectKeptOut(rust, 'assertion removed (values only computed)', 'base tests', 'allow');
  }, LONG);
});
