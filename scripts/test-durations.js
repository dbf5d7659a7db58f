#!/usr/bin/env node
/**
 * Refreshes test/durations.json, the file times the test sequencer (test/sequencer.ts) orders by, from the output
 * of a vitest run with the default reporter — what CI's log holds:
 *
 *   npx vitest run 2>&1 | tee run.log && node scripts/test-durations.js run.log
 *
 * It reads the per-file lines (` ✓ test/x.test.ts (5 tests) 175014ms`, after the project's label when there is one:
 * `|unit|` plain, ` unit ` coloured): a file's time there includes its hooks,
 * where vitest's JSON report only spans its tests (package-install's 165 s of installs are in a beforeAll). Files
 * in the log replace their entries; entries of other files that still exist are kept (a partial run refreshes what
 * it ran), entries of files that are gone are dropped.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const durationsFile = join(root, 'test', 'durations.json');

/** `text` (a vitest log, ANSI colours allowed) → milliseconds per file path, for every per-file result line. */
export function parseFileTimes(text) {
  const times = {};
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
  for (const line of plain.split('\n')) {
    // A file whose tests were all skipped prints no time: it costs nothing, so 0 (not "unknown", which starts first).
    const match = /^\s*[✓×↓❯]\s+(?:\|?[\w-]+\|?\s+)?(\S+\.test\.[cm]?[jt]sx?)\s+\(\d+ tests?[^)]*\)(?:\s+(\d+(?:\.\d+)?)(ms|s))?\s*$/u.exec(line);
    if (!match) continue;
    const [, path, amount = '0', unit] = match;
    times[path] = Math.round(Number(amount) * (unit === 's' ? 1000 : 1));
  }
  return times;
}

/** The durations after a run: `fresh` over `previous`, without files that no longer exist; sorted by path. */
export function mergeDurations(previous, fresh, exists) {
  const merged = { ...previous, ...fresh };
  return Object.fromEntries(Object.entries(merged).filter(([path]) => Object.hasOwn(fresh, path) || exists(path)).sort(([a], [b]) => a.localeCompare(b)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const log = process.argv[2];
  if (!log) {
    console.error('Usage: node scripts/test-durations.js <vitest output>. To fix: save a run\'s output (npx vitest run 2>&1 | tee run.log) and pass its path.');
    process.exit(2);
  }
  const fresh = parseFileTimes(readFileSync(log, 'utf8'));
  if (Object.keys(fresh).length === 0) {
    console.error(`${log}: no per-file result lines (" ✓ test/x.test.ts (3 tests) 1200ms"). To fix: pass the output of vitest's default reporter.`);
    process.exit(1);
  }
  const previous = existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : {};
  const merged = mergeDurations(previous, fresh, (path) => existsSync(join(root, path)));
  writeFileSync(durationsFile, `${JSON.stringify(merged, null, 1)}\n`);
  console.log(`test/durations.json: ${Object.keys(fresh).length} files from ${log}, ${Object.keys(merged).length} in all.`);
}
