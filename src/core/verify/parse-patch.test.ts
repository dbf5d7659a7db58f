import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { parsePatch, type FilePatch } from './parse-patch.js';

/** Real `git diff --cached --find-renames` output (git 2.x), captured byte for byte. */
const GIT_PATCH = [
  'diff --git a/b.bin b/b.bin',
  'index 87ae6b6..22f6b3b 100644',
  'Binary files a/b.bin and b/b.bin differ',
  'diff --git a/crlf.txt b/crlf.txt',
  'index 0aa0f34..1525a06 100644',
  '--- a/crlf.txt',
  '+++ b/crlf.txt',
  '@@ -1,2 +1,2 @@',
  ' x\r',
  '-y\r',
  '+z\r',
  'diff --git a/exe.sh b/exe.sh',
  'old mode 100644',
  'new mode 100755',
  'diff --git a/old.md b/new.md',
  'similarity index 74%',
  'rename from old.md',
  'rename to new.md',
  'index 53f1df8..03a1bdf 100644',
  '--- a/old.md',
  '+++ b/new.md',
  '@@ -1,4 +1,4 @@',
  ' line one',
  ' line two',
  ' line three',
  '-line four',
  '+line 4',
  'diff --git "a/sp ace \\303\\251.ts" "b/sp ace \\303\\251.ts"',
  'index 587be6b..975fbec 100644',
  '--- "a/sp ace \\303\\251.ts"\t',
  '+++ "b/sp ace \\303\\251.ts"\t',
  '@@ -1 +1 @@',
  '-x',
  '+y',
  'diff --git a/t.test.ts b/t2.test.ts',
  'similarity index 100%',
  'rename from t.test.ts',
  'rename to t2.test.ts',
  'diff --git a/gone.test.ts b/gone.test.ts',
  'deleted file mode 100644',
  'index 1525a06..0000000',
  '--- a/gone.test.ts',
  '+++ /dev/null',
  '@@ -1,2 +0,0 @@',
  "-it('adds', () => {",
  '-  expect(add(1, 2)).toBe(3);',
  'diff --git a/empty.txt b/empty.txt',
  'new file mode 100644',
  'index 0000000..e69de29',
  'diff --git a/n.test.ts b/n.test.ts',
  'new file mode 100644',
  'index 0000000..95e1380',
  '--- /dev/null',
  '+++ b/n.test.ts',
  '@@ -0,0 +1,2 @@',
  "+it.skip('adds', () => {",
  '+});',
  '\\ No newline at end of file',
  '',
].join('\n');

function summary(files: FilePatch[]) {
  return files.map(({ path, oldPath, binary, added, removed }) => ({ path, oldPath, binary, added, removed }));
}

describe('parsePatch (jsdiff)', () => {
  it("reads git's dialect: binary markers, mode changes, renames with and without hunks, quoted names, CRLF, creates and deletes", () => {
    const reading = parsePatch(GIT_PATCH);
    if (!reading.ok) throw new Error(reading.message);
    expect(summary(reading.files)).toEqual([
      { path: 'b.bin', oldPath: 'b.bin', binary: true, added: [], removed: [] },
      { path: 'crlf.txt', oldPath: 'crlf.txt', binary: false, added: ['z\r'], removed: ['y\r'] },
      { path: 'exe.sh', oldPath: 'exe.sh', binary: false, added: [], removed: [] },
      { path: 'new.md', oldPath: 'old.md', binary: false, added: ['line 4'], removed: ['line four'] },
      { path: 'sp ace é.ts', oldPath: 'sp ace é.ts', binary: false, added: ['y'], removed: ['x'] },
      { path: 't2.test.ts', oldPath: 't.test.ts', binary: false, added: [], removed: [] },
      { path: 'gone.test.ts', oldPath: 'gone.test.ts', binary: false, added: [], removed: ["it('adds', () => {", '  expect(add(1, 2)).toBe(3);'] },
      { path: 'empty.txt', oldPath: null, binary: false, added: [], removed: [] },
      { path: 'n.test.ts', oldPath: null, binary: false, added: ["it.skip('adds', () => {", '});'], removed: [] },
    ]);
  });

  it("reads jsdiff's own patches (Index: and ==== lines, no diff --git)", () => {
    const patch = createTwoFilesPatch('a/src/a.test.ts', 'b/src/a.test.ts', 'expect(x).toBe(3);\n', 'expect(x).toBeDefined();\n');
    const reading = parsePatch(patch);
    expect(reading.ok && summary(reading.files)).toEqual([
      { path: 'src/a.test.ts', oldPath: 'src/a.test.ts', binary: false, added: ['expect(x).toBeDefined();'], removed: ['expect(x).toBe(3);'] },
    ]);
  });

  it('reads lines that look like headers inside a hunk as content', () => {
    const patch = ['diff --git a/notes.md b/notes.md', '--- a/notes.md', '+++ b/notes.md', '@@ -1,2 +1,2 @@', '--- a/x', '-@@ fake @@', '++++ b/y', '+diff --git a/z b/z', ''].join('\n');
    const reading = parsePatch(patch);
    expect(reading.ok && summary(reading.files)).toEqual([
      { path: 'notes.md', oldPath: 'notes.md', binary: false, added: ['+++ b/y', 'diff --git a/z b/z'], removed: ['-- a/x', '@@ fake @@'] },
    ]);
  });

  it('an empty patch is no files; a capped patch keeps its whole files and ignores the note after them', () => {
    expect(parsePatch('')).toEqual({ ok: true, files: [] });
    const capped = `${GIT_PATCH.split('diff --git a/exe.sh')[0]}… patch truncated at 300 characters (1,200 in all): 2 of 9 file(s) shown\n`;
    const reading = parsePatch(capped);
    expect(reading.ok && reading.files.map((file) => file.path)).toEqual(['b.bin', 'crlf.txt']);
  });

  it('fails, never returns "no lines", for a patch cut inside a hunk or with wrong counts', () => {
    const cut = `${GIT_PATCH.slice(0, GIT_PATCH.indexOf('-line four'))}… patch truncated\n`;
    expect(parsePatch(cut)).toMatchObject({ ok: false, message: expect.stringMatching(/hunk/i) });
    const wrongCounts = ['diff --git a/a.test.ts b/a.test.ts', '--- a/a.test.ts', '+++ b/a.test.ts', '@@ -1,1 +1,1 @@', '-a', '+b', '+it.skip(x)', ''].join('\n');
    expect(parsePatch(wrongCounts).ok).toBe(false);
  });

  it('fails for headers without hunks (the old hand-made memory patch) and for hunks without a file', () => {
    const headerOnly = ['diff --git a/src/a.test.ts b/src/a.test.ts', '--- a/src/a.test.ts', '+++ b/src/a.test.ts', "-it('x', () => {", "+it.skip('x', () => {", ''].join('\n');
    expect(parsePatch(headerOnly)).toMatchObject({ ok: false, message: expect.stringContaining('src/a.test.ts has a file header but no hunks') });
    expect(parsePatch('@@ -1 +1 @@\n-a\n+it.skip(b)\n')).toMatchObject({ ok: false, message: expect.stringContaining('no file') });
  });
});
