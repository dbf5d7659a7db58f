/** The cheating catalogue on the vendored Go project, in bubblewrap (test/cheats-on-real-projects.ts). */
import { describe, it } from 'vitest';
import { language, expectHonestCommitted, expectKeptOut, hasBwrap, LONG, useCheatCleanup } from './cheats-on-real-projects.js';

useCheatCleanup();

describe.runIf(hasBwrap)('the cheating catalogue on vendored real projects, in bubblewrap', () => {
  it('Go (go-humanize): the honest Ordinal fix is committed with TestCommas still red; t.Skip, a TestMain that exits 0 and an expected value rewritten are kept out', async () => {
    const go = language('Go');
    await expectHonestCommitted(go);
    await expectKeptOut(go, 't.Skip in the test', 'per-test evidence');
    await expectKeptOut(go, 'TestMain that exits 0 without running', 'per-test evidence');
    await expectKeptOut(go, 'expected value rewritten to the buggy output', 'base tests');
  }, LONG);
});
