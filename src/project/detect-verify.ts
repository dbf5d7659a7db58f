/**
 * Default verification commands, detected from the repository's own files
 * when a loop declares none.
 */
import { join } from 'node:path';
import { pytestCommand } from './detect-python.js';
import { readOptionalText } from './project-files.js';

/** What `npm init` writes as the test script: a placeholder, not a test suite. */
const NPM_PLACEHOLDER_TEST = /no test specified/;

async function readText(path: string): Promise<string | null> {
  return readOptionalText(path);
}

export type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun';

/** Lock files in the order they decide: a repository with two trusts the more specific manager. */
const LOCK_FILES: ReadonlyArray<[string, PackageManager]> = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['bun.lockb', 'bun'],
  ['bun.lock', 'bun'],
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
];

/**
 * The package manager a JavaScript project uses, from its lock file
 * (pnpm-lock.yaml → pnpm, yarn.lock → yarn, bun.lockb/bun.lock → bun,
 * package-lock.json → npm); npm when there is none.
 *
 * @example
 * ```ts
 * await detectPackageManager('/repo'); // → 'pnpm' when /repo/pnpm-lock.yaml exists
 * ```
 */
export async function detectPackageManager(root: string): Promise<PackageManager> {
  for (const [file, manager] of LOCK_FILES) {
    if ((await readText(join(root, file))) !== null) return manager;
  }
  return 'npm';
}

/** `npm test` / `pnpm test`…, and `<manager> run <script>` for the others. */
function scriptCommand(manager: PackageManager, script: string): string {
  if (script === 'test') return `${manager} test`;
  return `${manager} run ${script}`;
}

function npmCommands(text: string, manager: PackageManager): string[] {
  let scripts: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text) as { scripts?: unknown };
    if (parsed.scripts && typeof parsed.scripts === 'object') scripts = parsed.scripts as Record<string, unknown>;
  } catch {
    return [];
  }
  const has = (name: string) => typeof scripts[name] === 'string' && (scripts[name] as string).trim() !== '';
  const commands: string[] = [];
  if (has('test') && !NPM_PLACEHOLDER_TEST.test(scripts.test as string)) commands.push(scriptCommand(manager, 'test'));
  if (has('lint')) commands.push(scriptCommand(manager, 'lint'));
  if (has('typecheck')) commands.push(scriptCommand(manager, 'typecheck'));
  return commands;
}

function hasPytest(pyproject: string | null, setupCfg: string | null, pytestIni: string | null, toxIni: string | null): boolean {
  if (pytestIni !== null) return true;
  if (pyproject !== null && (/\[tool\.pytest/.test(pyproject) || /\bpytest\b/.test(pyproject))) return true;
  if (setupCfg !== null && /\[tool:pytest\]/.test(setupCfg)) return true;
  return toxIni !== null && /\[pytest\]/.test(toxIni);
}

/**
 * The verification commands a repository implies, in a fixed order:
 * package.json scripts (test, lint, typecheck — ignoring npm's placeholder test) run
 * with the package manager its lock file names (`pnpm test`, `yarn run lint`…),
 * pytest in the project's own environment (`.venv/bin/python -m pytest -q`, uv, poetry, else `pytest -q`),
 * `go test ./...`, `cargo test`; and `make test` (a Makefile with a
 * `test:` target) only when nothing else was found, since it usually wraps one
 * of the others.
 *
 * @example
 * ```ts
 * await detectVerifyCommands('/repo'); // → ['npm test', 'npm run lint'] for a typical Node project
 * ```
 */
export async function detectVerifyCommands(root: string, env: Record<string, string | undefined> = process.env): Promise<string[]> {
  const [packageJson, pyproject, setupCfg, pytestIni, toxIni, goMod, cargoToml, makefile] = await Promise.all(
    ['package.json', 'pyproject.toml', 'setup.cfg', 'pytest.ini', 'tox.ini', 'go.mod', 'Cargo.toml', 'Makefile'].map((name) => readText(join(root, name))),
  );
  const commands: string[] = [];
  if (packageJson) commands.push(...npmCommands(packageJson, await detectPackageManager(root)));
  if (hasPytest(pyproject ?? null, setupCfg ?? null, pytestIni ?? null, toxIni ?? null)) commands.push(await pytestCommand(root, env));
  if (goMod !== null) commands.push('go test ./...');
  if (cargoToml !== null) commands.push('cargo test');
  if (makefile && /^test\s*:/m.test(makefile) && !commands.length) commands.push('make test');
  return commands;
}
