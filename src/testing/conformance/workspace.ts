/**
 * The Workspace port's contract as a test suite. Every adapter — the git
 * worktree workspace, the memory workspace, yours — runs the same cases, so
 * twins cannot drift apart: the change set and its patch, the anti-gaming
 * findings on cheating diffs, commit holding exactly what was checked,
 * discard and keep, and file access that cannot leave the workspace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedPaths, type Workspace, type WorkspaceFiles, type WorkspaceHandle } from '../../core/ports/index.js';
import { checkDiffIntegrity } from '../../core/verify/check-diff-integrity.js';
import { parsePatch } from '../../core/verify/parse-patch.js';
import { CHEATS, CONFORMANCE_BASE_FILES } from './workspace-cheats.js';

/** What the suite needs besides the port: ways to look at an adapter's storage from outside. */
export interface WorkspaceHarness {
  /** Must offer `files()` with `remove`. */
  workspace: Workspace;
  /** What a human could still find of an attempt's file (worktree, branch, kept edits); null when nothing. */
  leftover(handle: WorkspaceHandle, path: string): Promise<string | null>;
  /** The paths the attempt's commit changed against the base (renames as old + new), sorted; [] without a commit. */
  committedPaths(handle: WorkspaceHandle): Promise<string[]>;
  /**
   * Puts a symbolic link at `link` in the workspace to a directory outside it holding `secret.txt`;
   * returns a reader of that directory. Leave it out when the adapter has no symbolic links.
   */
  linkOutside?(handle: WorkspaceHandle, link: string): Promise<{ read(name: string): Promise<string | null> }>;
  close?(): Promise<void>;
}

/** Makes a workspace whose base holds exactly `baseFiles`. */
export type MakeWorkspace = (baseFiles: Readonly<Record<string, string>>) => Promise<WorkspaceHarness>;

const ESCAPES = ['../escape.txt', 'src/../../escape.txt', '/etc/passwd', 'C:\\escape.txt', '.git/config', 'src/.git/hooks/pre-commit', '', 'a\0b'];

/**
 * Registers the workspace conformance suite for one adapter.
 *
 * @example
 * ```ts
 * describeWorkspaceConformance('MemoryWorkspace', async (files) => {
 *   const workspace = new MemoryWorkspace({ files });
 *   return { workspace, leftover: …, committedPaths: … };
 * });
 * ```
 */
export function describeWorkspaceConformance(name: string, makeWorkspace: MakeWorkspace): void {
  describe(`Workspace conformance: ${name}`, () => {
    let harness: WorkspaceHarness;
    let attempts = 0;
    beforeAll(async () => {
      harness = await makeWorkspace(CONFORMANCE_BASE_FILES);
    });
    afterAll(async () => {
      await harness?.close?.();
    });

    const start = async (): Promise<{ handle: WorkspaceHandle; files: Required<WorkspaceFiles> }> => {
      attempts++;
      const prepared = await harness.workspace.prepare({
        tickId: `tick-${attempts}`,
        patternId: 'conformance',
        item: { key: `item#${attempts}`, title: 'Conformance' },
        branchPrefix: 'loop/conformance/',
        baseBranch: null,
      });
      if (!prepared.ok) throw new Error(`prepare failed: ${prepared.message}`);
      const files = harness.workspace.files?.(prepared.handle);
      if (!files?.remove) throw new Error(`${name}: the conformance suite needs files() with remove()`);
      return { handle: prepared.handle, files: { read: files.read, write: files.write, remove: files.remove } };
    };
    const changesOf = async (handle: WorkspaceHandle) => {
      const result = await harness.workspace.changes(handle);
      if (!result.ok) throw new Error(`changes failed: ${result.message}`);
      return result.changes;
    };
    const author = { name: 'Conformance', email: 'conformance@example.test' };

    it('prepares an isolated attempt that starts from the base', async () => {
      const first = await start();
      const second = await start();
      expect(first.handle.id).not.toBe(second.handle.id);
      expect(first.handle.branch.startsWith('loop/conformance/')).toBe(true);
      expect(await first.files.read('src/math.ts')).toBe(CONFORMANCE_BASE_FILES['src/math.ts']);
      expect(await first.files.read('src/missing.ts')).toBeNull();
      await first.files.write('src/math.ts', 'export const add = () => 0;\n');
      expect(await first.files.read('src/math.ts')).toBe('export const add = () => 0;\n');
      expect(await second.files.read('src/math.ts')).toBe(CONFORMANCE_BASE_FILES['src/math.ts']);
    });

    it('reports added, modified, deleted and renamed files, sorted, with a patch that parses', async () => {
      const { handle, files } = await start();
      await files.write('src/math.ts', 'export const add = (a: number, b: number) => b + a;\n');
      await files.write('src/extra.ts', 'export const extra = 1;\n');
      await files.remove('README.md');
      await files.remove('docs/guide.md');
      await files.write('docs/manual.md', CONFORMANCE_BASE_FILES['docs/guide.md']!);
      const changes = await changesOf(handle);
      expect(changes.files).toEqual([
        { path: 'README.md', status: 'deleted', binary: false },
        { path: 'docs/manual.md', status: 'renamed', from: 'docs/guide.md', binary: false },
        { path: 'src/extra.ts', status: 'added', binary: false },
        { path: 'src/math.ts', status: 'modified', binary: false },
      ]);
      const reading = parsePatch(changes.patch);
      if (!reading.ok) throw new Error(reading.message);
      expect(reading.files.map((file) => [file.path, file.oldPath]).sort()).toEqual([
        ['README.md', 'README.md'],
        ['docs/manual.md', 'docs/guide.md'],
        ['src/extra.ts', null],
        ['src/math.ts', 'src/math.ts'],
      ]);
      const math = reading.files.find((file) => file.path === 'src/math.ts');
      expect(math).toMatchObject({ added: ['export const add = (a: number, b: number) => b + a;'], removed: ['export const add = (a: number, b: number) => a + b;'] });
      expect(reading.files.find((file) => file.path === 'README.md')?.removed).toEqual(['# demo']);
    });

    it('reports nothing when a file is written back to its base content', async () => {
      const { handle, files } = await start();
      await files.write('src/math.ts', 'changed\n');
      await files.write('src/math.ts', CONFORMANCE_BASE_FILES['src/math.ts']!);
      expect(await changesOf(handle)).toEqual({ files: [], patch: '' });
    });

    describe('anti-gaming sees every cheat in the diff the workspace produced', () => {
      it.each(CHEATS)('$name → $expected', async ({ edit, expected, protectedPaths }) => {
        const { handle, files } = await start();
        await edit(files);
        const changes = await changesOf(handle);
        expect(parsePatch(changes.patch).ok).toBe(true);
        const findings = checkDiffIntegrity(changes, { protectedPaths: protectedPaths ?? [] });
        expect(findings.map((finding) => [finding.kind, finding.action])).toContainEqual(expected);
        await harness.workspace.discard(handle);
      });

      it('an honest fix and an honest new test raise nothing (a checker that flags everything fails here)', async () => {
        const { handle, files } = await start();
        await files.write('src/math.ts', 'export const add = (a: number, b: number) => {\n  return a + b;\n};\n');
        await files.write('src/sum.test.ts', "import { expect, it } from 'vitest';\n\nit('sums', () => {\n  expect(1 + 1).toBe(2);\n});\n");
        const changes = await changesOf(handle);
        expect(checkDiffIntegrity(changes, { protectedPaths: ['fixtures/**'] })).toEqual([]);
      });
    });

    it('commits exactly the files changes() reported', async () => {
      const { handle, files } = await start();
      await files.write('src/math.ts', 'export const add = (a: number, b: number) => a + b + 0;\n');
      await files.remove('README.md');
      await files.remove('docs/guide.md');
      await files.write('docs/manual.md', CONFORMANCE_BASE_FILES['docs/guide.md']!);
      const changes = await changesOf(handle);
      const committed = await harness.workspace.commit(handle, { message: 'fix: add', trailers: { 'Loop-Pattern': 'conformance' }, author });
      expect(committed).toMatchObject({ ok: true, commit: { branch: handle.branch } });
      expect(await harness.committedPaths(handle)).toEqual(changedPaths(changes));
    });

    it('refuses to commit a file written after changes() — the gate never sees a different set than the commit holds', async () => {
      const { handle, files } = await start();
      await files.write('src/math.ts', 'export const add = (a: number, b: number) => a + b + 0;\n');
      await changesOf(handle);
      await files.write('src/late.ts', "export const late = 'unchecked';\n");
      const refused = await harness.workspace.commit(handle, { message: 'fix', trailers: {}, author });
      expect(refused).toMatchObject({ ok: false, reason: 'conflict', message: expect.stringContaining('src/late.ts') });
      expect(await harness.committedPaths(handle)).toEqual([]);

      // An edit to an already-reported file after changes() is refused too.
      const changes = await changesOf(handle);
      await files.write('src/math.ts', "export const add = () => 'edited after the check';\n");
      expect(await harness.workspace.commit(handle, { message: 'fix', trailers: {}, author })).toMatchObject({ ok: false, reason: 'conflict' });

      // Reading the changes again lets the commit through, holding what was read.
      const reread = await changesOf(handle);
      expect(changedPaths(reread)).toEqual(changedPaths(changes));
      expect(await harness.workspace.commit(handle, { message: 'fix', trailers: {}, author })).toMatchObject({ ok: true });
      expect(await harness.committedPaths(handle)).toEqual(['src/late.ts', 'src/math.ts']);
    });

    it("withBaseFiles runs with the base's tests in place, then restores the attempt's versions byte for byte", async (context) => {
      const { workspace } = harness;
      if (!workspace.withBaseFiles || !workspace.readBase) {
        context.skip();
        return;
      }
      const { handle, files } = await start();
      await files.write('src/math.ts', 'export const add = (a: number, b: number) => a + b + 0;\n');
      await files.write('src/math.test.ts', "it('adds', () => {\n  expect(add(1, 2)).toBeTruthy();\n});\n");
      await files.write('src/extra.test.ts', "it('passes', () => {});\n");
      await files.remove('tests/test_math.py');
      const changes = await changesOf(handle);
      expect(await workspace.readBase(handle, 'src/math.test.ts')).toBe(CONFORMANCE_BASE_FILES['src/math.test.ts']);
      expect(await workspace.readBase(handle, 'src/extra.test.ts')).toBeNull();
      const paths = ['src/extra.test.ts', 'src/math.test.ts', 'tests/test_math.py'];
      const seen = await workspace.withBaseFiles(handle, paths, async () => {
        const during = await Promise.all(['src/math.ts', ...paths].map((path) => files.read(path)));
        // A command that rewrites a test while it runs changes nothing that is kept.
        await files.write('src/math.test.ts', 'rewritten by a test run\n');
        return during;
      });
      expect(seen).toEqual({
        ok: true,
        value: ['export const add = (a: number, b: number) => a + b + 0;\n', null, CONFORMANCE_BASE_FILES['src/math.test.ts'], CONFORMANCE_BASE_FILES['tests/test_math.py']],
      });
      expect(await files.read('src/math.test.ts')).toBe("it('adds', () => {\n  expect(add(1, 2)).toBeTruthy();\n});\n");
      expect(await files.read('src/extra.test.ts')).toBe("it('passes', () => {});\n");
      expect(await files.read('tests/test_math.py')).toBeNull();
      // The reviewed tree is intact: the commit goes through and holds exactly what changes() reported.
      expect(await workspace.commit(handle, { message: 'fix', trailers: {}, author })).toMatchObject({ ok: true });
      expect(await harness.committedPaths(handle)).toEqual(changedPaths(changes));
    });

    it('resetToBase leaves exactly the base: rewritten files restored, new and deleted files undone, nothing to commit', async (context) => {
      const { workspace } = harness;
      if (!workspace.resetToBase) {
        context.skip();
        return;
      }
      const { handle, files } = await start();
      // What a verification command at the base might do: rewrite a tracked file, write a new one, delete one.
      await files.write('src/math.ts', 'export const add = () => 0;\n');
      await files.write('generated/report.txt', 'written by a command\n');
      await files.remove('README.md');
      expect(changedPaths(await changesOf(handle))).not.toEqual([]);
      expect(await workspace.resetToBase(handle)).toMatchObject({ ok: true });
      expect(await files.read('src/math.ts')).toBe(CONFORMANCE_BASE_FILES['src/math.ts']);
      expect(await files.read('README.md')).toBe(CONFORMANCE_BASE_FILES['README.md']);
      expect(await files.read('generated/report.txt')).toBeNull();
      expect(changedPaths(await changesOf(handle))).toEqual([]);
      // The attempt goes on from there: what is written after the reset is the change, and only that.
      await files.write('src/math.ts', 'export const add = (a: number, b: number) => b + a;\n');
      expect(changedPaths(await changesOf(handle))).toEqual(['src/math.ts']);
    });

    it('refuses to commit before changes() was read', async () => {
      const { handle, files } = await start();
      await files.write('src/math.ts', 'export const add = () => 3;\n');
      expect(await harness.workspace.commit(handle, { message: 'fix', trailers: {}, author })).toMatchObject({ ok: false, reason: 'conflict' });
      expect(await harness.committedPaths(handle)).toEqual([]);
    });

    it('discard throws the work away; keep leaves it for a human', async () => {
      const discarded = await start();
      await discarded.files.write('src/discarded.ts', 'export {};\n');
      await changesOf(discarded.handle);
      await harness.workspace.discard(discarded.handle);
      expect(await harness.leftover(discarded.handle, 'src/discarded.ts')).toBeNull();

      const kept = await start();
      await kept.files.write('src/kept.ts', 'export const kept = true;\n');
      await harness.workspace.keep(kept.handle, 'the gate escalated');
      expect(await harness.leftover(kept.handle, 'src/kept.ts')).toBe('export const kept = true;\n');
      // The next attempt starts from the base, not from either of them.
      const next = await start();
      expect(await next.files.read('src/discarded.ts')).toBeNull();
      expect(await next.files.read('src/kept.ts')).toBeNull();
    });

    it.each(ESCAPES)('file access refuses %j with a WORKSPACE_FAILED error, reading and writing', async (path) => {
      const { handle, files } = await start();
      await expect(files.write(path, 'x')).rejects.toMatchObject({ name: 'LoopRuntimeError', code: 'WORKSPACE_FAILED' });
      await expect(files.read(path)).rejects.toMatchObject({ code: 'WORKSPACE_FAILED' });
      await expect(files.remove(path)).rejects.toMatchObject({ code: 'WORKSPACE_FAILED' });
      expect((await changesOf(handle)).files).toEqual([]);
    });

    it('file access allows the same kinds of paths inside the workspace (so "refuse everything" fails)', async () => {
      const { handle, files } = await start();
      await files.write('src/./nested//new.txt', 'inside\n');
      await files.write('src\\windows.txt', 'inside\n');
      await files.write('.github/CODEOWNERS', '* @me\n');
      expect(await files.read('src/nested/new.txt')).toBe('inside\n');
      expect(changedPaths(await changesOf(handle))).toEqual(['.github/CODEOWNERS', 'src/nested/new.txt', 'src/windows.txt']);
    });

    it('file access does not follow a symbolic link out of the workspace', async (context) => {
      const { handle, files } = await start();
      if (!harness.linkOutside) {
        context.skip();
        return;
      }
      const outside = await harness.linkOutside(handle, 'escape');
      expect(await outside.read('secret.txt')).not.toBeNull();
      await expect(files.read('escape/secret.txt')).rejects.toMatchObject({ code: 'WORKSPACE_FAILED' });
      await expect(files.write('escape/pwned.txt', 'x')).rejects.toMatchObject({ code: 'WORKSPACE_FAILED' });
      await expect(files.remove('escape/secret.txt')).rejects.toMatchObject({ code: 'WORKSPACE_FAILED' });
      expect(await outside.read('pwned.txt')).toBeNull();
      expect(await outside.read('secret.txt')).not.toBeNull();
    });
  });
}
