/**
 * The pure core must stay pure, and the proof is the compiler and the linter,
 * not a regex: `tsconfig.core.json` compiles src/core and backends/mock with no
 * Node types and an ES-only lib, and `eslint.config.js` restricts imports and
 * host globals there. This test runs both over the real tree, and runs both
 * over hostile probe files to show each check bites. Probes are virtual (served
 * to the compiler host and to ESLint's lintText under a path in src/core), so a
 * crash can never leave one behind in the tree.
 */
import { join, relative } from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const PROBE = join(root, 'src/core/__boundary-probe__.ts');

function coreOptions(overrides: ts.CompilerOptions = {}): { options: ts.CompilerOptions; fileNames: string[] } {
  const configPath = join(root, 'tsconfig.core.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root, undefined, configPath);
  return { options: { ...parsed.options, ...overrides }, fileNames: parsed.fileNames };
}

/** Parsed declaration files (libs, packages), shared by every program here: they never change during a run. */
const declarationFiles = new Map<string, ts.SourceFile | undefined>();

/** A program over `rootNames`, with the probe's text served from memory. */
function program(rootNames: string[], options: ts.CompilerOptions, probeText?: string): ts.Program {
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => file === PROBE || fileExists.call(host, file);
  host.readFile = (file) => (file === PROBE ? probeText : readFile.call(host, file));
  host.getSourceFile = (file, language, ...rest) => {
    if (file === PROBE) return ts.createSourceFile(file, probeText ?? '', language);
    if (!file.endsWith('.d.ts')) return getSourceFile.call(host, file, language, ...rest);
    if (!declarationFiles.has(file)) declarationFiles.set(file, getSourceFile.call(host, file, language, ...rest));
    return declarationFiles.get(file);
  };
  return ts.createProgram({ rootNames, options, host });
}

function errorsOf(built: ts.Program): string[] {
  return ts.getPreEmitDiagnostics(built).map((diagnostic) => {
    const where = diagnostic.file ? `${relative(root, diagnostic.file.fileName)}: ` : '';
    return `${where}TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
  });
}

function compileProbe(text: string, overrides: ts.CompilerOptions = {}): string[] {
  return errorsOf(program([PROBE], coreOptions(overrides).options, text));
}

const eslint = new ESLint({ cwd: root });

async function lintProbe(text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: PROBE });
  return (result?.messages ?? []).map((message) => `${message.line}: ${message.ruleId ?? 'parse'}`);
}

describe('the core compiles without Node (tsconfig.core.json)', () => {
  let core: ts.Program;
  beforeAll(() => {
    const { options, fileNames } = coreOptions();
    core = program(fileNames, options);
  });

  it('covers the core and compiles clean', () => {
    const files = core.getRootFileNames().map((file) => relative(root, file));
    expect(files).toContain('src/core/engine/loop-engine.ts');
    expect(files).toContain('backends/mock/mock-backend.ts');
    expect(files).toContain('src/adapters/leases/memory-item-leases.ts');
    expect(files.some((file) => file.endsWith('.test.ts'))).toBe(false);
    expect(errorsOf(core)).toEqual([]);
  });

  it('pulls in no Node type definitions through any import (they would declare process, Buffer, timers)', () => {
    const nodeTypes = core.getSourceFiles().map((file) => file.fileName).filter((file) => file.includes('/@types/node/'));
    expect(nodeTypes).toEqual([]);
  });

  it.each([
    ['process.env', 'export const home = process.env.HOME;'],
    ['Buffer', "export const bytes = Buffer.from('x');"],
    ['setTimeout', 'setTimeout(() => {}, 1);'],
    ['fetch', "export const response = fetch('https://example.com');"],
    ['console', "console.log('x');"],
    ['node:fs', "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;"],
    ['fs', "import { readFileSync } from 'fs';\nexport const read = readFileSync;"],
    ['globalThis.process', 'export const host = globalThis.process;'],
    ['computed globalThis key', "export const host = globalThis['proc' + 'ess'];"],
  ])('rejects %s, which compiles with Node types', (_name, text) => {
    expect(compileProbe(text)).not.toEqual([]);
    // The twin: the same probe with Node's types compiles, so the failure comes from the core config.
    if (!text.includes('globalThis[')) expect(compileProbe(text, { types: ['node'] })).toEqual([]);
  });

  it('accepts plain ES (the probe itself is not what fails)', () => {
    expect(compileProbe("export const parsed = JSON.parse('[1]') as number[];\nexport const set = new Set(parsed);")).toEqual([]);
  });
});

describe('the core lint (eslint.config.js)', () => {
  it('finds nothing in the real core', async () => {
    const results = await eslint.lintFiles(['src/core', 'backends/mock']);
    const problems = results.flatMap((result) =>
      result.messages.map((message) => `${relative(root, result.filePath)}:${message.line} ${message.ruleId}: ${message.message}`),
    );
    expect(results.length).toBeGreaterThan(50);
    expect(problems).toEqual([]);
  });

  it.each([
    ['a node: import', "import { readFile } from 'node:fs/promises';", 'no-restricted-imports'],
    ['a bare built-in', "import fs from 'fs';", 'no-restricted-imports'],
    ['an I/O package', "import { execa } from 'execa';", 'no-restricted-imports'],
    ['the runtime', "import { createLoopRuntime } from '../composition/create-runtime.js';", 'core-boundary/relative-imports-stay-in-core'],
    ['an adapter', "import { GitWorkspace } from '../adapters/workspace/git-workspace.js';", 'core-boundary/relative-imports-stay-in-core'],
    ['a backend', "export * from '../../backends/openai/index.js';", 'core-boundary/relative-imports-stay-in-core'],
    ['the CLI as a type', "export type Main = typeof import('../cli/main.js');", 'core-boundary/relative-imports-stay-in-core'],
    ['a dynamic import', "export const os = await import('node:os');", 'no-restricted-syntax'],
    ['the wall clock', 'export const now = Date.now();', 'no-restricted-globals'],
    ['new Date()', 'export const today = new Date();', 'no-restricted-globals'],
    ['a timer', 'setTimeout(() => {}, 1);', 'no-restricted-globals'],
    ['process', 'export const home = process.env.HOME;', 'no-restricted-globals'],
    ['globalThis', "export const host = (globalThis as Record<string, unknown>)['proc' + 'ess'];", 'no-restricted-globals'],
    ['fetch', "export const response = fetch('https://example.com');", 'no-restricted-globals'],
    ['randomness', 'export const roll = Math.random();', 'no-restricted-properties'],
    ['code from strings', "export const run = new Function('return 1');", 'no-new-func'],
  ])('rejects %s', async (_name, text, rule) => {
    expect(await lintProbe(text)).toContainEqual(`1: ${rule}`);
  });

  it.each([
    ['a core import', "import { utcDay } from './budget/utc-day.js';\nexport const day = utcDay(0);"],
    ['a pure package', "import { z } from 'zod';\nexport const schema = z.string();"],
    ['time through the helper', "import { toIsoString } from './time/utc-time.js';\nexport const iso = toIsoString(0);"],
  ])('accepts %s (the rules do not block everything)', async (_name, text) => {
    expect(await lintProbe(text)).toEqual([]);
  });
});
