import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseAgentFromTools } from './agent-detection.js';

let root: string;
let bin: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'agent-detect-'));
  bin = path.join(root, 'bin');
  await mkdir(path.join(root, 'node_modules', '.bin'), { recursive: true });
  await mkdir(bin);
  await writeFile(path.join(root, 'node_modules', '.bin', 'codex'), '#!/bin/sh\n');
  await chmod(path.join(root, 'node_modules', '.bin', 'codex'), 0o755);
  await writeFile(path.join(bin, 'claude'), '#!/bin/sh\n');
  await chmod(path.join(bin, 'claude'), 0o755);
  await writeFile(path.join(bin, 'gemini'), 'not executable');
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('chooseAgentFromTools', () => {
  it('takes the first installed agent in tools order, from node_modules/.bin or PATH', () => {
    expect(chooseAgentFromTools(['gh', 'claude-code', 'codex'], root, { PATH: bin })).toMatchObject({ ok: true, backend: 'claude-code', tool: 'claude-code' });
    expect(chooseAgentFromTools(['opencode', 'codex'], root, { PATH: bin })).toMatchObject({ ok: true, backend: 'codex', binary: path.join(root, 'node_modules', '.bin', 'codex') });
  });
  it('skips a non-executable file and names the package to install when nothing runs', () => {
    const choice = chooseAgentFromTools(['gemini'], root, { PATH: bin });
    expect(choice).toMatchObject({ ok: false });
    if (!choice.ok) expect(choice.fix).toMatch(/npm install @google\/gemini-cli.*--backend mock/);
    expect(chooseAgentFromTools(['gh'], root, { PATH: '' })).toMatchObject({ ok: false });
  });
});
