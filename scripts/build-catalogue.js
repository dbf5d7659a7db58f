#!/usr/bin/env node
/**
 * `npm run build`, after tsc: compiles registry.yaml to dist/catalogue.json, checked by the runtime's own loader
 * (tsc's output of it), so start-up parses JSON, not YAML. `loadCatalogue` uses the JSON only while the YAML text
 * it carries equals registry.yaml on disk, so an edited catalogue is never read stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { loadRegistry } = await import(join(root, 'dist', 'src', 'core', 'config', 'load-registry.js'));
const { COMPILED_CATALOGUE, compileCatalogue } = await import(join(root, 'dist', 'src', 'project', 'load-catalogue.js'));
const file = join(root, 'registry.yaml');
const text = await readFile(file, 'utf8');
const loaded = loadRegistry(text, file);
if (!loaded.ok) {
  const issues = loaded.issues.map((issue) => `${issue.line}:${issue.column} ${issue.path} ${issue.message}`).join('\n');
  throw new Error(`registry.yaml is invalid, so the build stops:\n${issues}\nTo fix: correct registry.yaml and run npm run build again.`);
}
await writeFile(join(root, COMPILED_CATALOGUE), `${JSON.stringify(compileCatalogue(text, loaded.value))}\n`);
