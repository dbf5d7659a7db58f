import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shCommandRunner } from '../../test/fakes/agent-request.js';
import { globTool, grepTool, listTool, readFileTool } from './read-tools.js';
import { toolsForRole } from './tool-set.js';
import type { ToolContext } from './tool-types.js';
import { editFileTool, runCommandTool, writeFileTool } from './write-tools.js';

let root: string;
let writer: ToolContext;
let reader: ToolContext;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'loop-tools-'));
  await writeFile(path.join(root, 'long.txt'), Array.from({ length: 1000 }, (_, index) => `line ${index + 1}`).join('\n'));
  await writeFile(path.join(root, 'dup.txt'), 'a\na\nb\n');
  writer = { root, permissions: { write: true, execute: true }, commands: shCommandRunner, commandTimeoutMs: 10_000 };
  reader = { root, permissions: { write: false, execute: false }, commandTimeoutMs: 10_000 };
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('workspace tools', () => {
  it('pages read_file', async () => {
    const first = await readFileTool.run({ path: 'long.txt' }, reader);
    expect(first.content).toContain('     1\tline 1');
    expect(first.content).toContain('[lines 1-400 of 1000; call read_file with offset=401 for more]');
    const page = await readFileTool.run({ path: 'long.txt', offset: 990, limit: 20 }, reader);
    expect(page.content.split('\n')).toHaveLength(11);
    expect(page.content).not.toContain('[lines');
  });

  it('lists, globs and greps', async () => {
    expect((await listTool.run({}, reader)).content).toBe('dup.txt\nlong.txt');
    expect((await globTool.run({ pattern: '*.txt' }, reader)).content).toBe('dup.txt\nlong.txt');
    expect((await grepTool.run({ pattern: '^line 99\\d$' }, reader)).content).toBe(
      Array.from({ length: 10 }, (_, index) => `long.txt:${990 + index}: line ${990 + index}`).join('\n'),
    );
    expect((await grepTool.run({ pattern: '(' }, reader)).ok).toBe(false);
  });

  it('edits only on a unique exact match', async () => {
    expect((await editFileTool.run({ path: 'dup.txt', old_string: 'a', new_string: 'z' }, writer)).content).toContain('occurs 2 times');
    expect((await editFileTool.run({ path: 'dup.txt', old_string: 'q', new_string: 'z' }, writer)).content).toContain('not found');
    const edited = await editFileTool.run({ path: 'dup.txt', old_string: 'b', new_string: '$& $1' }, writer);
    expect(edited).toMatchObject({ ok: true, wrote: ['dup.txt'] });
    expect(await readFile(path.join(root, 'dup.txt'), 'utf8')).toBe('a\na\n$& $1\n');
    expect((await editFileTool.run({ path: 'dup.txt', old_string: 'a', new_string: 'z', replace_all: true }, writer)).ok).toBe(true);
    expect(await readFile(path.join(root, 'dup.txt'), 'utf8')).toBe('z\nz\n$& $1\n');
  });

  it('refuses writes and commands without permission', async () => {
    expect((await writeFileTool.run({ path: 'x.txt', content: 'x' }, reader)).content).toContain('may not write');
    expect((await runCommandTool.run({ command: 'touch y' }, reader)).content).toContain('may not run commands');
    expect((await runCommandTool.run({ command: 'echo hi' }, writer)).content).toBe('exit code 0\nhi');
  });

  it('offers read-only roles no write tools at all', () => {
    const names = (write: boolean, execute: boolean, runner: boolean) => toolsForRole({ write, execute }, runner).map((tool) => tool.definition.name);
    expect(names(false, false, true)).toEqual(['read_file', 'list', 'glob', 'grep', 'done']);
    expect(names(true, true, false)).toEqual(['read_file', 'list', 'glob', 'grep', 'write_file', 'edit_file', 'done']);
    expect(names(true, true, true)).toContain('run_command');
  });
});
