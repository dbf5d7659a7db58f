import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from './diagnostics.js';
import { loadGate } from './load-gate.js';
import { loadLoopMd } from './load-loop-md.js';
import { loadRegistry } from './load-registry.js';

const BOMB = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefg'.split('').map((name, index) => `${name}: &${name} [${Array(9).fill(`*${'abcdefg'[index]}`).join(', ')}]`)].join('\n');

describe('hostile YAML in every loader', () => {
  it.each([
    ['registry.yaml', (text: string) => loadRegistry(text)],
    ['gate.yaml', (text: string) => loadGate(text)],
    ['LOOP.md', (text: string) => loadLoopMd(`---\nloop-runtime:\n${text.replace(/^/gm, '  ')}\n---\n`)],
  ])('%s: an alias bomb and an undefined alias are diagnostics with a position and a fix, not exceptions', (file, load) => {
    const bomb = load(BOMB);
    expect(bomb.ok).toBe(false);
    const bombIssue = !bomb.ok ? bomb.issues[0]! : undefined;
    expect(bombIssue).toMatchObject({ file, code: 'YAML_ALIAS_LIMIT' });
    expect(bombIssue!.line).toBeGreaterThan(0);

    const dangling = load('level: *nowhere');
    expect(dangling.ok).toBe(false);
    const issue = !dangling.ok ? dangling.issues[0]! : undefined;
    expect(formatDiagnostic(issue!)).toMatch(new RegExp(`^${file.replace('.', '\\.')}:\\d+:\\d+: YAML alias \\*nowhere refers to no anchor &nowhere defined before it\\. To fix: define &nowhere before this alias`));
  });
});

describe('globs a gate could not match', () => {
  it('a 100,000-character glob fails validation with its position, instead of throwing at the gate in every tick', () => {
    const result = loadGate(`version: 1\ndenylist:\n  - "${'*'.repeat(100_000)}"\n`);
    expect(result.ok).toBe(false);
    const issue = !result.ok ? result.issues[0]! : undefined;
    expect(issue).toMatchObject({ file: 'gate.yaml', line: 3, path: 'denylist[0]' });
    expect(issue!.message).toContain('longer than 1024 characters');
  });
});
