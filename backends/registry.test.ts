import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoopRuntimeError } from '../src/core/errors.js';
import { loadLoopMd } from '../src/core/config/load-loop-md.js';
import { resolveBackend } from './registry.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'loop-registry-'));
  await writeFile(
    path.join(root, 'good-backend.mjs'),
    `export function createBackend(settings) {
       return { specificationVersion: 'agent-backend-v2', name: 'good', settings, async run() { return { ok: true, role: 'check', output: { verdict: 'APPROVE', reasons: [] }, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: null } }; } };
     }`,
  );
  await writeFile(path.join(root, 'old-backend.mjs'), `export function createBackend() { return { specificationVersion: 'agent-backend-v0', name: 'old', run() {} }; }`);
  await writeFile(path.join(root, 'v1-backend.mjs'), `export function createBackend() { return { specificationVersion: 'agent-backend-v1', name: 'v1', run() {} }; }`);
  await writeFile(path.join(root, 'no-factory.mjs'), `export const something = 1;`);
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    expect(error).toBeInstanceOf(LoopRuntimeError);
    return (error as LoopRuntimeError).code;
  }
}

describe('resolveBackend', () => {
  it('resolves the built-ins by name', async () => {
    expect((await resolveBackend('claude-code', { model: null }, { root })).name).toBe('claude-code');
    expect((await resolveBackend('openai', { model: 'gpt-4.1-mini', apiKey: 'k' }, { root })).name).toBe('openai');
    expect((await resolveBackend('ollama', { model: 'qwen2.5-coder:7b' }, { root })).name).toBe('ollama');
    expect((await resolveBackend('mock', {}, { root })).specificationVersion).toBe('agent-backend-v2');
  });

  it('resolves codex, and loads opencode / gemini-cli lazily from their folders (BACKEND_NOT_FOUND while absent)', async () => {
    expect((await resolveBackend('codex', { model: null }, { root })).name).toBe('codex');
    for (const name of ['opencode', 'gemini-cli', 'gemini']) {
      const code = await codeOf(resolveBackend(name, {}, { root }));
      expect(['resolved', 'BACKEND_NOT_FOUND']).toContain(code);
    }
  });

  it('asks for a model where one is required, with advice validate accepts', async () => {
    expect(await codeOf(resolveBackend('openai', { model: null }, { root }))).toBe('CONFIG_INVALID');
    const fix = await resolveBackend('openai', { model: null }, { root }).then(
      () => '',
      (error: LoopRuntimeError) => error.fix ?? '',
    );
    const advised = /e\.g\. (model: \S+)\)/.exec(fix)?.[1];
    expect(advised).toBe('model: gpt-4.1-mini');
    const loaded = loadLoopMd(`---\nloop-runtime:\n  backend: openai\n  ${advised}\n---\n# Loops\n`);
    expect(loaded.ok).toBe(true);
    expect(loaded.ok && loaded.value.settings?.model).toBe('gpt-4.1-mini');
  });

  it('loads a third-party plugin from a path relative to the project root and passes its settings', async () => {
    const backend = await resolveBackend('./good-backend.mjs', { model: 'm', temperature: 0 }, { root });
    expect(backend.name).toBe('good');
    expect((backend as unknown as { settings: unknown }).settings).toEqual({ model: 'm', temperature: 0 });
  });

  it('refuses plugins that are missing, lack createBackend, or speak another version', async () => {
    expect(await codeOf(resolveBackend('./missing.mjs', {}, { root }))).toBe('BACKEND_NOT_FOUND');
    expect(await codeOf(resolveBackend('no-such-backend-package', {}, { root }))).toBe('BACKEND_NOT_FOUND');
    expect(await codeOf(resolveBackend('./no-factory.mjs', {}, { root }))).toBe('BACKEND_NOT_FOUND');
    await expect(resolveBackend('./old-backend.mjs', {}, { root })).rejects.toThrow(/agent-backend-v0.*To fix:/);
    await expect(resolveBackend('./v1-backend.mjs', {}, { root })).rejects.toThrow(/"agent-backend-v1", not "agent-backend-v2" \(v2 requests are role-discriminated/);
  });

  it('validates the mock backend\'s settings instead of trusting them', async () => {
    const mock = await resolveBackend('mock', { scenarios: ['noop'], model: 'ignored' }, { root });
    expect(mock.name).toBe('mock');
    expect(await codeOf(resolveBackend('mock', { scenarios: ['explode'] }, { root }))).toBe('CONFIG_INVALID');
    await expect(resolveBackend('mock', { scenarios: ['explode'] }, { root })).rejects.toThrow(/scenarios\.0.*To fix: use scenarios from act-accept/);
  });
});
