import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from './diagnostics.js';
import { loadLoopMd, splitFrontMatter } from './load-loop-md.js';

describe('splitFrontMatter', () => {
  it('splits a leading --- block off the markdown', () => {
    expect(splitFrontMatter('---\na: 1\n---\n\n# Title\n')).toEqual({ yaml: 'a: 1\n', body: '# Title\n', closingLine: 3 });
    expect(splitFrontMatter('# Title\n---\n')).toEqual({ yaml: null, body: '# Title\n---\n', closingLine: 0 });
  });
});

describe('loadLoopMd', () => {
  it('accepts a LOOP.md without front matter', () => {
    const result = loadLoopMd('# Loop Configuration\n\n| Pattern | Cadence |\n');
    expect(result).toEqual({ ok: true, value: { settings: null, body: '# Loop Configuration\n\n| Pattern | Cadence |\n', hasFrontMatter: false }, warnings: [] });
  });

  it('a loop-runtime block that lost its opening "---" is an error at its line, not a LOOP.md without settings', () => {
    const result = loadLoopMd(['# Loops', 'loop-runtime:', '  level: L3', '  backend: codex', '---', '# Active loops', ''].join('\n'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map(formatDiagnostic)).toEqual([
      'LOOP.md:2:1 loop-runtime: "loop-runtime:" is on line 2, but LOOP.md does not start with "---", so it is not front matter and these settings would be ignored. To fix: put a line "---" at the very top of LOOP.md and another after the last settings line (or remove the "loop-runtime:" block).',
    ]);
    // The allowed twins: the key quoted in prose or in a code fence is documentation, not settings.
    expect(loadLoopMd('# Loops\n\nSettings go under `loop-runtime:` in front matter.\n').ok).toBe(true);
    expect(loadLoopMd('# Loops\n\n```yaml\nloop-runtime:\n  level: L2\n```\n').ok).toBe(true);
  });

  it('reads token amounts as people write them, and names one it cannot read', () => {
    const ok = loadLoopMd(['---', 'loop-runtime:', '  dailyTokenCap: 100k', '  loops:', '    ci-sweeper:', '      dailyTokenCap: "1,500,000"', '---', ''].join('\n'));
    expect(ok.ok && ok.value.settings).toMatchObject({ dailyTokenCap: 100_000, loops: { 'ci-sweeper': { dailyTokenCap: 1_500_000 } } });
    const bad = loadLoopMd(['---', 'loop-runtime:', '  dailyTokenCap: 50%', '---', ''].join('\n'));
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.issues.map(formatDiagnostic)).toEqual(['LOOP.md:3:3 loop-runtime.dailyTokenCap: expected a number, found "50%". To fix: write a number such as 100000, 100,000, 100k or 1.5M.']);
  });

  it('reads the loop-runtime block and ignores other tools\' keys', () => {
    const text = ['---', 'title: Our loops', 'owner: platform', 'loop-runtime:', '  level: L2', '  verify: ["npm test"]', '  loops:', '    ci-sweeper:', '      dailyTokenCap: 300000', '---', '# Loops', ''].join('\n');
    const result = loadLoopMd(text);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.settings).toEqual({ version: 1, level: 'L2', verify: ['npm test'], loops: { 'ci-sweeper': { dailyTokenCap: 300000 } } });
    expect(result.value.body).toBe('# Loops\n');
  });

  it('is strict about our own keys: a typo is an error at the LOOP.md line of the key', () => {
    const text = ['---', 'title: Our loops', 'loop-runtime:', '  level: L2', '  dailyTokenCapp: 5000', '  loops:', '    ci-sweeper:', '      verfy: ["npm test"]', '---', '# Loops', ''].join('\n');
    const result = loadLoopMd(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map(formatDiagnostic)).toEqual([
      'LOOP.md:8:7 loop-runtime.loops.ci-sweeper.verfy: "verfy" is not a known setting. To fix: did you mean "verify"? Rename it, or remove it.',
      'LOOP.md:5:3 loop-runtime.dailyTokenCapp: "dailyTokenCapp" is not a known setting. To fix: did you mean "dailyTokenCap"? Rename it, or remove it.',
    ]);
  });

  it('reports bad values with their LOOP.md position', () => {
    const result = loadLoopMd('---\nloop-runtime:\n  level: L5\n  maxAttempts: 0\n---\n');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map(formatDiagnostic)).toEqual([
      'LOOP.md:3:3 loop-runtime.level: "L5" is not one of L0, L1, L2, L3. To fix: use one of: L0, L1, L2, L3.',
      'LOOP.md:4:3 loop-runtime.maxAttempts: 0 is below the minimum of 1. To fix: use a value of at least 1.',
    ]);
  });

  it('reads testEdits (allow | escalate) and refuses anything else at its line', () => {
    const allowed = loadLoopMd('---\nloop-runtime:\n  testEdits: allow\n---\n');
    expect(allowed.ok && allowed.value.settings?.testEdits).toBe('allow');
    const bad = loadLoopMd('---\nloop-runtime:\n  testEdits: sometimes\n---\n');
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.issues.map(formatDiagnostic)[0]).toMatch(/^LOOP\.md:3:3 loop-runtime\.testEdits: "sometimes" is not one of escalate, allow/);
  });

  it('reports YAML syntax errors and unclosed front matter relative to LOOP.md', () => {
    const broken = loadLoopMd('---\nloop-runtime:\n  level: [L2\n---\n');
    expect(broken.ok).toBe(false);
    if (!broken.ok) {
      expect(broken.issues[0]?.line).toBeGreaterThanOrEqual(3);
      // One position, LOOP.md's: the yaml library's own "at line N, column M:" (relative to the block) is not repeated.
      expect(broken.issues.map(formatDiagnostic).join('\n')).not.toMatch(/at line \d+|:\.|\.\./);
    }
    const unclosed = loadLoopMd('---\nloop-runtime:\n  level: L2\n');
    expect(unclosed.ok).toBe(false);
    if (!unclosed.ok) expect(unclosed.issues[0]?.message).toContain('never closed');
  });
});

describe('loadLoopMd settings layers', () => {
  it('keeps only what was written, so a partial delivery block does not carry defaults into the merge', () => {
    const result = loadLoopMd('---\nloop-runtime:\n  loops:\n    ci-sweeper:\n      delivery: { mode: push }\n      probes: [{ name: red, command: "gh run list" }]\n---\n');
    expect(result.ok && result.value.settings).toEqual({
      version: 1,
      loops: { 'ci-sweeper': { delivery: { mode: 'push' }, probes: [{ name: 'red', command: 'gh run list', found: 'non-empty', timeoutSeconds: 60 }] } },
    });
  });
});

describe('loadLoopMd store:', () => {
  it('accepts files, postgres and { url: env:NAME, scope }', () => {
    for (const store of ['files', 'postgres', '{ url: env:LOOP_RUNTIME_DATABASE_URL, scope: acme/demo }']) {
      const result = loadLoopMd(`---\nloop-runtime:\n  store: ${store}\n---\n`);
      expect(result.ok, store).toBe(true);
    }
    const object = loadLoopMd('---\nloop-runtime:\n  store: { url: env:FLEET_DB }\n---\n');
    expect(object.ok && object.value.settings?.store).toEqual({ url: 'env:FLEET_DB' });
  });

  it('refuses a URL written in the file, and unknown kinds, at their line with a fix', () => {
    const written = loadLoopMd('---\nloop-runtime:\n  level: L2\n  store:\n    url: postgresql://loops:hunter2@db/loops\n---\n', 'LOOP.md');
    expect(written.ok).toBe(false);
    if (!written.ok) {
      expect(written.issues[0]).toMatchObject({ file: 'LOOP.md', line: 5, path: 'loop-runtime.store.url' });
      expect(written.issues[0]?.message).toContain('env:NAME');
    }
    const unknown = loadLoopMd('---\nloop-runtime:\n  store: mysql\n---\n', 'LOOP.md');
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.issues[0]).toMatchObject({ line: 3, path: 'loop-runtime.store' });
  });
});
