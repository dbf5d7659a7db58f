/**
 * Our pattern catalogue. registry.yaml is the source; the build compiles it
 * to dist/catalogue.json (`scripts/build-catalogue.js`) so start-up parses JSON,
 * not YAML, and never validates the same file again. The JSON records the
 * YAML text it came from: when registry.yaml changed since the build (a
 * checkout between builds, a hand edit), the YAML is parsed and validated as
 * before, so the two can never disagree at runtime. (A text comparison, not
 * a hash: node:crypto alone costs more start-up time than reading 7 KB.)
 */
import { join } from 'node:path';
import type { Diagnostic } from '../core/config/diagnostics.js';
import type { Registry } from '../core/config/schemas.js';
import { readOptionalText } from './project-files.js';

/** dist/catalogue.json: the validated registry and the registry.yaml text it was compiled from. */
export interface CompiledCatalogue {
  version: 1;
  source: string;
  registry: Registry;
}

export type LoadCatalogueResult = { ok: true; registry: Registry } | { ok: false; issues: Diagnostic[] };

/** Where the build writes the compiled catalogue, relative to the package root. */
export const COMPILED_CATALOGUE = join('dist', 'catalogue.json');

/**
 * The compiled form of a registry.yaml text that `loadRegistry` accepted.
 *
 * @example
 * ```ts
 * writeFileSync('dist/catalogue.json', JSON.stringify(compileCatalogue(yaml, loadRegistry(yaml).value)));
 * ```
 */
export function compileCatalogue(source: string, registry: Registry): CompiledCatalogue {
  return { version: 1, source, registry };
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
    return compiled.version === 1 && compiled.source === yaml && compiled.registry ? compiled.registry : null;
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
