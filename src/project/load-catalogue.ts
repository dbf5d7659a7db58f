/**
 * Our pattern catalogue. registry.yaml is the source; the build compiles it
 * to dist/catalogue.json (`scripts/build-cli.js`) so start-up parses JSON,
 * not YAML, and never validates the same file again. The JSON records the
 * SHA-256 of the YAML it came from: when registry.yaml changed since the
 * build (a checkout between builds, a hand edit), the YAML is parsed and
 * validated as before, so the two can never disagree at runtime.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Diagnostic } from '../core/config/diagnostics.js';
import type { Registry } from '../core/config/schemas.js';
import { readOptionalText } from './project-files.js';

/** dist/catalogue.json: the validated registry and the hash of the registry.yaml it was compiled from. */
export interface CompiledCatalogue {
  version: 1;
  sourceSha256: string;
  registry: Registry;
}

export type LoadCatalogueResult = { ok: true; registry: Registry } | { ok: false; issues: Diagnostic[] };

/** Where the build writes the compiled catalogue, relative to the package root. */
export const COMPILED_CATALOGUE = join('dist', 'catalogue.json');

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function damaged(file: string, message: string, detail: readonly Diagnostic[] = []): LoadCatalogueResult {
  return {
    ok: false,
    issues: [{ severity: 'error', file, line: 0, column: 0, path: '', message, fix: 'reinstall loop-runtime; the package is damaged.' }, ...detail],
  };
}

function compiledFor(json: string | null, yaml: string): Registry | null {
  if (json === null) return null;
  try {
    const compiled = JSON.parse(json) as Partial<CompiledCatalogue>;
    return compiled.version === 1 && compiled.sourceSha256 === sha256(yaml) && compiled.registry ? compiled.registry : null;
  } catch {
    return null;
  }
}

/**
 * Loads loop-runtime's own catalogue from `packageRoot`.
 *
 * @example
 * ```ts
 * const catalogue = await loadCatalogue(findPackageRoot());
 * if (catalogue.ok) console.log(catalogue.registry.patterns.map((pattern) => pattern.id)); // ['daily-triage', …]
 * ```
 */
export async function loadCatalogue(packageRoot: string): Promise<LoadCatalogueResult> {
  const file = join(packageRoot, 'registry.yaml');
  const [yaml, json] = await Promise.all([readOptionalText(file), readOptionalText(join(packageRoot, COMPILED_CATALOGUE))]);
  if (yaml === null) return damaged(file, "loop-runtime's own pattern catalogue is missing.");
  const compiled = compiledFor(json, yaml);
  if (compiled) return { ok: true, registry: compiled };
  const { loadRegistry } = await import('../core/config/load-registry.js');
  const loaded = loadRegistry(yaml, file);
  return loaded.ok ? { ok: true, registry: loaded.value } : damaged(file, "loop-runtime's own pattern catalogue is invalid.", loaded.issues);
}
