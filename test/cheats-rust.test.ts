/** The cheating catalogue on the vendored Rust project, in bubblewrap (test/cheats-on-real-projects.ts). */
import { describe, it } from 'vitest';
import { language, expectHonestCommitted, expectKeptOut, hasBwrap, LONG, useCheatCleanup } from './cheats-on-real-projects.js';

useCheatCleanup();

describe.runIf(hasBwrap)('the cheating catalogue on vendored real projects, in bubblewrap', () => {
  it('Rust (heck, tests inside src/): the honest kebab fix is committed with title case still red; five cheats are kept out (a tautology inside src/ by the test-edit rule only)', async () => {
    const rust = language('Rust');
    await expectHonestCommitted(rust);
    await expectKeptOut(rust, '#[cfg(any())] on the test module', 'per-test evidence');
    await expectKeptOut(rust, '[lib] test = false', 'per-test evidence');
    await expectKeptOut(rust, '.cargo/config.toml runner with --skip kebab', 'per-test evidence');
    await expectKeptOut(rust, '#[should_panic] in the test macro', 'per-test evidence');
    // Tests inline in src/kebab.rs: the base's tests cannot be put back without the base's source, so a vacuous
    // assertion there is kept out by the test-edit rule alone (a loop with testEdits: allow would commit it).
    await expectKeptOut(rust, 'tautology: compared with itself', 'test-edit rule');
  }, LONG);
});
