#!/usr/bin/env node
/**
 * The build stamp: lets `npm test` skip `npm run build` when dist/ was built from exactly the sources on disk. CI
 * runs `npm ci` (whose `prepare` builds) and then `npm test`, which built the same sources a second time.
 *
 *   node scripts/build-stamp.js begin   first step of `npm run build`: drops the stamp, records the inputs' hash
 *   node scripts/build-stamp.js end     last step: writes dist/build-stamp.json (inputs hash + outputs hash)
 *   node scripts/build-stamp.js check   exit 0 only if the stamp matches the inputs and dist/ as they are now
 *
 * The inputs are everything the build reads: src/ and backends/ (test files aside: tsconfig.build.json excludes
 * them and no entry point imports one), the build scripts, the tsconfigs, package.json and package-lock.json (the
 * bundled dependencies' versions) and registry.yaml (compiled to dist/catalogue.json). Their hash is taken at
 * `begin`, so a source edited while the build runs leaves a stamp that no longer matches. The outputs' hash (every
 * file in dist/ but the stamp) catches a dist/ changed or half-deleted after the build. Any difference, a missing
 * or unreadable stamp, or a failed build (no `end`) means "stale": the build runs.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STAMP = 'dist/build-stamp.json';
const PENDING = 'dist/.build-stamp-pending.json';
const FORMAT = 1;

const INPUT_DIRECTORIES = ['src', 'backends'];
const INPUT_FILES = (root) => [
  'package.json',
  'package-lock.json',
  'registry.yaml',
  ...readdirSync(root).filter((name) => /^tsconfig.*\.json$/.test(name)),
  ...readdirSync(join(root, 'scripts')).filter((name) => /^(build-.*|clean-dist)\.js$/.test(name)).map((name) => `scripts/${name}`),
];

function walk(root, directory) {
  const absolute = join(root, directory);
  if (!existsSync(absolute)) return [];
  const files = [];
  for (const entry of readdirSync(absolute, { withFileTypes: true })) {
    const path = `${directory}/${entry.name}`;
    if (entry.isDirectory()) files.push(...walk(root, path));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** sha256 over each path and its bytes, in path order; a missing file hashes as absent, not as empty. */
function hashFiles(root, paths) {
  const hash = createHash('sha256');
  for (const path of [...new Set(paths)].sort()) {
    const absolute = join(root, path);
    hash.update(`${path}\0`);
    hash.update(existsSync(absolute) && statSync(absolute).isFile() ? readFileSync(absolute) : '\0absent\0');
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The hash of everything `npm run build` reads in `root`. */
export function hashInputs(root) {
  const sources = INPUT_DIRECTORIES.flatMap((directory) => walk(root, directory)).filter((path) => !/\.test\.tsx?$/.test(path));
  return hashFiles(root, [...sources, ...INPUT_FILES(root)]);
}

/** The hash of what the build left in dist/ (the stamp and its pending half aside). */
export function hashOutputs(root) {
  return hashFiles(root, walk(root, 'dist').filter((path) => path !== STAMP && path !== PENDING));
}

/** Writes through a temporary file and a rename: never into an existing file's inode (a hard-linked dist/ stays whole). */
function writeJson(root, path, value) {
  const temporary = join(root, `${path}.${process.pid}.tmp`);
  writeFileSync(temporary, `${JSON.stringify(value, null, 1)}\n`);
  renameSync(temporary, join(root, path));
}

export function begin(root) {
  rmSync(join(root, STAMP), { force: true });
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeJson(root, PENDING, { format: FORMAT, inputs: hashInputs(root) });
}

export function end(root) {
  const pending = JSON.parse(readFileSync(join(root, PENDING), 'utf8'));
  writeJson(root, STAMP, { format: FORMAT, inputs: pending.inputs, outputs: hashOutputs(root) });
  rmSync(join(root, PENDING), { force: true });
}

/** `{ fresh: true }`, or `{ fresh: false, reason }` naming why dist/ must be built again. */
export function check(root) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, STAMP), 'utf8'));
  } catch {
    return { fresh: false, reason: `no readable ${STAMP}` };
  }
  if (stamp?.format !== FORMAT || typeof stamp.inputs !== 'string' || typeof stamp.outputs !== 'string') return { fresh: false, reason: `${STAMP} is not a stamp this script wrote` };
  if (stamp.inputs !== hashInputs(root)) return { fresh: false, reason: 'the sources changed since the last build' };
  if (stamp.outputs !== hashOutputs(root)) return { fresh: false, reason: 'dist/ changed since the last build' };
  return { fresh: true };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const command = process.argv[2];
  if (command === 'begin') begin(root);
  else if (command === 'end') end(root);
  else if (command === 'check') {
    const result = check(root);
    console.log(result.fresh ? `dist/ is built from these sources (${relative(process.cwd(), join(root, STAMP)) || STAMP}); skipping the build.` : `Building: ${result.reason}.`);
    process.exit(result.fresh ? 0 : 1);
  } else {
    console.error(`Unknown command ${JSON.stringify(command)}. To fix: node scripts/build-stamp.js begin|end|check.`);
    process.exit(2);
  }
}
