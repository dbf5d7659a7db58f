/**
 * The plain-JavaScript scripts (`npm run bench`, the build) import tsc's output by path, which no typecheck
 * follows: when a module moves, such a path keeps working on a machine whose dist/ still holds the old file and
 * breaks on a clean checkout. `bench-workspace.js` imported `dist/src/node/git-workspace.js` for weeks after the
 * module moved. Every module path they name must exist in the build.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const scripts = join(root, 'scripts');

/** The dist/ module paths a script names: `join(root, 'dist', …)`, `join(root, 'dist/…')`, `dist('…')` and `'../dist/…'`. */
function distModules(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/join\(root, 'dist'((?:, '[^']+')+)\)/g)) found.push(['dist', ...[...match[1]!.matchAll(/'([^']+)'/g)].map((part) => part[1]!)].join('/'));
  for (const match of text.matchAll(/join\(root, '(dist\/[^']+)'\)/g)) found.push(match[1]!);
  for (const match of text.matchAll(/\bdist\('([^']+)'\)/g)) found.push(`dist/${match[1]}`);
  for (const match of text.matchAll(/'\.\.\/(dist\/[^']+)'/g)) found.push(match[1]!);
  return found.filter((path) => path.endsWith('.js'));
}

describe('scripts name modules the build makes', () => {
  const files = readdirSync(scripts).filter((file) => file.endsWith('.js'));

  it.each(files)('%s', (file) => {
    const missing = distModules(readFileSync(join(scripts, file), 'utf8')).filter((path) => !existsSync(join(root, path)));
    expect(missing).toEqual([]);
  });

  it('finds the paths it checks (the patterns still match how the scripts name them)', () => {
    const named = files.flatMap((file) => distModules(readFileSync(join(scripts, file), 'utf8')));
    expect(named).toEqual(expect.arrayContaining(['dist/src/index.js', 'dist/src/adapters/workspace/git-workspace.js', 'dist/src/project/load-project.js', 'dist/src/server/serve.js']));
  });
});
