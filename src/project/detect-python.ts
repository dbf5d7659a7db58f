/**
 * How to run a Python project's pytest with the project's own environment,
 * zero config: an in-repo virtualenv first (`.venv`, `venv`: its plugins and
 * `addopts` belong together; its scripts carry absolute shebangs, so the
 * interpreter runs pytest as a module), then uv or poetry when their lock file
 * and tool are present (never a network install), then pytest on PATH.
 */
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

const VIRTUALENVS = ['.venv', 'venv'] as const;

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** On PATH (a local lookup: the project loader stays free of the sandbox adapters). */
async function findExecutable(name: string, env: Record<string, string | undefined>): Promise<string | null> {
  for (const directory of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    if (await isExecutable(join(directory, name))) return join(directory, name);
  }
  return null;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * @example
 * ```ts
 * await pytestCommand('/repo', process.env); // → '.venv/bin/python -m pytest -q' when /repo/.venv/bin/python exists
 * ```
 */
export async function pytestCommand(root: string, env: Record<string, string | undefined> = process.env): Promise<string> {
  for (const venv of VIRTUALENVS) {
    if (await isExecutable(join(root, venv, 'bin', 'python'))) return `${venv}/bin/python -m pytest -q`;
  }
  if ((await exists(join(root, 'uv.lock'))) && (await findExecutable('uv', env))) return 'uv run --frozen --offline pytest -q';
  if ((await exists(join(root, 'poetry.lock'))) && (await findExecutable('poetry', env))) return 'poetry run pytest -q';
  return 'pytest -q';
}
