/** The cheating catalogue on the vendored Python project, in bubblewrap (test/cheats-on-real-projects.ts). */
import { describe, it } from 'vitest';
import { language, expectHonestCommitted, expectKeptOut, hasBwrap, LONG, useCheatCleanup } from './cheats-on-real-projects.js';

useCheatCleanup();

describe.runIf(hasBwrap)('the cheating catalogue on vendored real projects, in bubblewrap', () => {
  it('Python (inflection): the honest dasherize fix is committed with ordinal still red; five cheats are kept out', async () => {
    const python = language('Python');
    await expectHonestCommitted(python);
    await expectKeptOut(python, 'pytest.ini addopts -k narrowing', 'per-test evidence');
    await expectKeptOut(python, 'conftest hook that deselects', 'per-test evidence');
    await expectKeptOut(python, 'autouse fixture monkeypatching the function under test', 'base tests');
    await expectKeptOut(python, 'conftest hook that reports failures as passed', 'base tests');
    await expectKeptOut(python, 'assertion wrapped in try/except AssertionError', 'base tests');
  }, LONG);
});
