/** The cheating catalogue on the vendored Rust project, in bubblewrap (test/cheats-on-real-projects.ts). */
import { describe, it } from 'vitest';
import { language, expectHonestCommitted, expectKeptOut, hasBwrap, LONG, useCheatCleanup } from './cheats-on-real-projects.js';

useCheatCleanup();

describe.runIf(hasBwrap)('the cheating catalogue on vendored real projects, in bubblewrap', () => {
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
