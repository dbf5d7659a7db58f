/**
 * Which test runner a verification command drives, from the command line
 * and, for `npm test`-style commands, the package.json script it runs. Pure:
 * the caller hands in the base's scripts (the agent's edits to them never
 * choose the reporter).
 */
import { memoByString } from '../../text/memo-by-string.js';

export type TestRunnerKind = 'pytest' | 'vitest' | 'jest' | 'node-test' | 'go-test' | 'cargo-test';

export interface DetectedRunner {
  runner: TestRunnerKind;
  /** The text that runs it: the command itself, or the package.json script. */
  text: string;
  /** The command runs a package.json script (`npm test`, `pnpm run unit`…), with this manager. */
  script?: { manager: string; name: string };
}

const PACKAGE_SCRIPT = /^(npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+)?([\w:.-]+)\s*$/;

/**
 * The runner a piece of shell text runs, or null. Remembered per text (`memoByString`): every tick asks it of the
 * same plan commands, and a text that names no runner goes through all six patterns.
 */
export const runnerOfText: (text: string) => TestRunnerKind | null = memoByString(runnerOfTextNow);

function runnerOfTextNow(text: string): TestRunnerKind | null {
  if (/(^|[\s/;&|(])(?:py\.test|pytest)(\s|$|;|&|\|)/.test(text) || /\s-m\s+pytest\b/.test(text)) return 'pytest';
  if (/(^|[\s;&|(])go\s+test\b/.test(text)) return 'go-test';
  if (/(^|[\s;&|(])cargo\s+(?:\+\S+\s+)?test\b/.test(text)) return 'cargo-test';
  if (/(^|[\s/;&|(])vitest(\s|$|;|&|\|)/.test(text)) return 'vitest';
  if (/(^|[\s/;&|(])jest(\s|$|;|&|\|)/.test(text)) return 'jest';
  if (/(^|[\s/;&|(])node\s+(?:[^;&|]*\s)?--test(\s|$|=|;|&|\|)/.test(text)) return 'node-test';
  return null;
}

/**
 * @example
 * ```ts
 * detectTestRunner('npm test', { test: 'node --test' }); // → { runner: 'node-test', text: 'node --test', script: { manager: 'npm', name: 'test' } }
 * detectTestRunner('.venv/bin/python -m pytest -q', null); // → { runner: 'pytest', text: '.venv/bin/python -m pytest -q' }
 * detectTestRunner('npm run lint', { lint: 'eslint .' }); // → null
 * ```
 */
export function detectTestRunner(command: string, scripts: Record<string, string> | null): DetectedRunner | null {
  const trimmed = command.trim();
  // `bun test` is bun's own test runner, not the package.json script (only `bun run test` is).
  if (/^bun\s+test\b/.test(trimmed)) return null;
  const script = PACKAGE_SCRIPT.exec(trimmed);
  if (script) {
    const manager = script[1] ?? 'npm';
    const name = script[2] === 't' ? 'test' : (script[2] ?? '');
    const text = scripts?.[name];
    if (typeof text !== 'string') return null;
    const runner = runnerOfText(text);
    return runner ? { runner, text, script: { manager, name } } : null;
  }
  const runner = runnerOfText(trimmed);
  return runner ? { runner, text: trimmed } : null;
}

/** package.json's `scripts`, or null when the text is missing or not a package.json. */
export function scriptsOf(packageJson: string | null): Record<string, string> | null {
  if (packageJson === null) return null;
  try {
    const parsed = JSON.parse(packageJson) as { scripts?: unknown };
    if (!parsed.scripts || typeof parsed.scripts !== 'object') return {};
    return Object.fromEntries(Object.entries(parsed.scripts as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return null;
  }
}
