/**
 * The pure core must stay pure: no Node built-ins, no process/git/colour
 * libraries, no wall clock or randomness. This test fails when a core module
 * reaches for I/O.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const CORE_DIRECTORIES = ['src/core', 'backends/mock'];
const FORBIDDEN_IMPORT = /^(node:|fs$|fs\/|path$|child_process|os$|net$|http|https$|crypto$|process$|execa|simple-git|picocolors|proper-lockfile|write-file-atomic)/;
/**
 * Core files that still re-export or default to an in-memory adapter. Each is a known debt owned outside the
 * engine; the list may only shrink. Everything else in src/core imports nothing outside src/core.
 */
const OUTSIDE_IMPORT_DEBT = new Set(['src/core/budget/index.ts', 'src/core/budget/budget-breaker.ts', 'src/core/state/index.ts', 'src/core/schedule/index.ts']);

function sourceFiles(directory: string): string[] {
  const absolute = join(root, directory);
  let entries: string[];
  try {
    entries = readdirSync(absolute);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(absolute, entry);
    if (statSync(path).isDirectory()) return sourceFiles(relative(root, path));
    return entry.endsWith('.ts') && !entry.endsWith('.test.ts') ? [relative(root, path)] : [];
  });
}

function importsOf(text: string): string[] {
  const specifiers: string[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g)) specifiers.push(match[1]!);
  for (const match of text.matchAll(/(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g)) specifiers.push(match[1]!);
  for (const match of text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)) specifiers.push(match[1]!);
  return specifiers;
}

/** Drops block and line comments so prose about `process.arch` is not mistaken for code. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const files = CORE_DIRECTORIES.flatMap(sourceFiles);

describe('pure core boundary', () => {
  it('finds the core modules', () => {
    expect(files.length).toBeGreaterThan(20);
    expect(files).toContain('src/core/engine/loop-engine.ts');
  });

  it.each(files)('%s imports no I/O module and nothing from the shell', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const offending = importsOf(text).filter((specifier) => FORBIDDEN_IMPORT.test(specifier) || /\/(node|cli)\//.test(specifier));
    expect(offending).toEqual([]);
  });

  it.each(files.filter((file) => file.startsWith('src/core/')))('%s imports nothing outside src/core', (file) => {
    if (OUTSIDE_IMPORT_DEBT.has(file)) return;
    const text = readFileSync(join(root, file), 'utf8');
    const outside = importsOf(text)
      .filter((specifier) => specifier.startsWith('.'))
      .filter((specifier) => !relative(join(root, 'src/core'), join(root, dirname(file), specifier)).split(sep).every((part) => part !== '..'));
    expect(outside).toEqual([]);
  });

  it.each(files)('%s reads no wall clock and no randomness', (file) => {
    const text = withoutComments(readFileSync(join(root, file), 'utf8'));
    expect(text.match(/Date\.now\(|new Date\(\)|Math\.random\(|performance\.now\(|process\./g) ?? []).toEqual([]);
  });

  it('detects a forbidden import (the check itself can fail)', () => {
    expect(importsOf("import { readFile } from 'node:fs/promises';").some((s) => FORBIDDEN_IMPORT.test(s))).toBe(true);
    expect(importsOf("const { execa } = await import('execa');").some((s) => FORBIDDEN_IMPORT.test(s))).toBe(true);
  });
});
