/**
 * Anti-gaming checks on a change: the ways an agent makes a red build green
 * without fixing anything. Works from the workspace's own ChangeSet (file
 * list + unified diff), never from what the agent says it did.
 */
import { minimatch } from 'minimatch';
import type { ChangeSet } from '../ports/index.js';
import {
  ASSERTION_PATTERN,
  countMatches,
  LOOSENING_RULES,
  SKIP_MARKERS,
  STRONG_MATCHER_PATTERN,
  SUPPRESSION_PATTERN,
  THRESHOLD_PATTERN,
  WEAK_MATCHER_PATTERN,
} from './integrity-rules.js';
import { assertionRewrites, vacuousAssertions } from './assertion-rewrites.js';
import { parsePatch, type FilePatch } from './parse-patch.js';
import { configKindOf, isCiFile, isTestFile } from './test-conventions.js';

export type IntegrityKind =
  | 'test-deleted'
  | 'test-renamed'
  | 'skip-marker-added'
  | 'assertion-removed'
  | 'assertion-weakened'
  | 'assertion-vacuous'
  | 'assertion-rewritten'
  | 'config-loosened'
  | 'ci-workflow-edited'
  | 'protected-path-edited'
  | 'patch-incomplete'
  /** An ignored file that could steer a test run (conftest.py, sitecustomize.py, a .pth, code): never committed, never verified. */
  | 'ignored-file-written'
  /** A verification run wrote into the tree to be committed (a tracked file rewritten, a new non-ignored file). */
  | 'source-written-by-verification'
  /** The workspace could not be put back to the reviewed tree, so what ran is not known to be what is committed. */
  | 'gated-tree-unavailable';

export interface IntegrityFinding {
  kind: IntegrityKind;
  path: string;
  detail: string;
  action: 'reject' | 'escalate';
}

export interface IntegrityOptions {
  /** minimatch globs (dot: true) the loop marks protected, e.g. `test/**`. */
  protectedPaths: readonly string[];
  /** What the failing verification commands printed at the base: an expected value rewritten to it is the bug's output. */
  baselineOutput?: string;
}

/** The global (counting) twin of each loosening rule's pattern, compiled once rather than per file per check. */
const COUNTING = new Map<RegExp, RegExp>();
function counting(pattern: RegExp): RegExp {
  let global = COUNTING.get(pattern);
  if (!global) COUNTING.set(pattern, (global = new RegExp(pattern.source, 'g')));
  return global;
}

function thresholds(lines: readonly string[]): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of lines) {
    THRESHOLD_PATTERN.lastIndex = 0;
    for (const match of line.matchAll(THRESHOLD_PATTERN)) {
      const key = (match[1] ?? '').toLowerCase().replace('-', '_');
      const value = Number(match[2]);
      values.set(key, Math.max(values.get(key) ?? 0, value));
    }
  }
  return values;
}

/** Appends what one file's added and removed lines show to `findings` (no list per file to spread in). */
function contentFindings(file: FilePatch, baselineOutput: string, findings: IntegrityFinding[]): void {
  const path = file.path;
  const isTest = isTestFile(path);
  for (const rule of SKIP_MARKERS) {
    if (!rule.applies(path, isTest)) continue;
    const net = countMatches(file.added, rule.pattern) - countMatches(file.removed, rule.pattern);
    if (net > 0) {
      findings.push({ kind: 'skip-marker-added', path, detail: `${net} "${rule.name}" marker(s) added`, action: 'reject' });
    }
  }
  if (isTest) {
    const net = countMatches(file.removed, ASSERTION_PATTERN) - countMatches(file.added, ASSERTION_PATTERN);
    if (net > 0) {
      findings.push({ kind: 'assertion-removed', path, detail: `${net} assertion(s) removed from a test file`, action: 'reject' });
    }
    const rewrites = assertionRewrites(file, baselineOutput);
    findings.push(...rewrites, ...vacuousAssertions(file));
    const weakened = countMatches(file.added, WEAK_MATCHER_PATTERN) - countMatches(file.removed, WEAK_MATCHER_PATTERN);
    const exactLost = countMatches(file.removed, STRONG_MATCHER_PATTERN) - countMatches(file.added, STRONG_MATCHER_PATTERN);
    // Pairs on the same subject say which assertion became which; the counts catch what no pair explains.
    if (weakened > 0 && exactLost > 0 && !rewrites.some((finding) => finding.kind === 'assertion-weakened')) {
      findings.push({
        kind: 'assertion-weakened',
        path,
        detail: `${Math.min(weakened, exactLost)} exact assertion(s) replaced by weaker ones (toBeDefined, toBeTruthy, is not None…)`,
        action: 'reject',
      });
    }
  }
  const suppressions = countMatches(file.added, SUPPRESSION_PATTERN) - countMatches(file.removed, SUPPRESSION_PATTERN);
  if (suppressions > 0) {
    findings.push({
      kind: 'config-loosened',
      path,
      detail: `${suppressions} lint/type/coverage suppression comment(s) added (eslint-disable, @ts-ignore, noqa…)`,
      action: 'reject',
    });
  }
  const kind = configKindOf(path);
  const isJsSource = /\.[cm]?[jt]sx?$/.test(path);
  for (const rule of LOOSENING_RULES) {
    const applies = (kind !== null && rule.kinds.includes(kind)) || (isJsSource && rule.kinds.includes('any-js'));
    if (!applies) continue;
    const added = rule.added ? countMatches(file.added, counting(rule.added)) - countMatches(file.removed, counting(rule.added)) : 0;
    const removed = rule.removed ? countMatches(file.removed, counting(rule.removed)) - countMatches(file.added, counting(rule.removed)) : 0;
    if (added > 0 || removed > 0) findings.push({ kind: 'config-loosened', path, detail: rule.detail, action: 'reject' });
  }
  if (kind !== null && kind !== 'tsconfig' && kind !== 'eslint') {
    const before = thresholds(file.removed);
    const after = thresholds(file.added);
    for (const [key, old] of before) {
      const now = after.get(key);
      if (now === undefined || now < old) {
        findings.push({
          kind: 'config-loosened',
          path,
          detail: `coverage threshold "${key}" ${now === undefined ? `removed (was ${old})` : `lowered from ${old} to ${now}`}`,
          action: 'reject',
        });
      }
    }
  }
}

/**
 * Finds the ways a change could game verification.
 *
 * - reject: test deleted or renamed out of test conventions, skip/only/todo/xfail
 *   markers added, assertions removed or weakened (a weaker matcher, a wider
 *   tolerance), an expected value rewritten to what the code printed at the
 *   base, lint/type/coverage configuration
 *   loosened (incl. suppression comments), protected paths edited;
 * - escalate: an expected value changed (`toBe(3)` → `toBe(4)`), CI definitions edited, a test renamed within test conventions,
 *   a test or config file whose diff is missing from a truncated patch, a patch
 *   that does not parse (then nothing in it counts as checked).
 *
 * @example
 * ```ts
 * checkDiffIntegrity({ files: [{ path: 'src/a.test.ts', status: 'deleted', binary: false }], patch: '' },
 *   { protectedPaths: [] });
 * // → [{ kind: 'test-deleted', path: 'src/a.test.ts', detail: '…', action: 'reject' }]
 * ```
 */
export function checkDiffIntegrity(changes: ChangeSet, options: IntegrityOptions): IntegrityFinding[] {
  const findings: IntegrityFinding[] = [];
  for (const file of changes.files) {
    const oldPath = file.from ?? file.path;
    if (file.status === 'deleted' && isTestFile(file.path)) {
      findings.push({ kind: 'test-deleted', path: file.path, detail: 'a test file was deleted', action: 'reject' });
    }
    if (file.status === 'renamed' && file.from && isTestFile(file.from)) {
      const stillTest = isTestFile(file.path);
      findings.push({
        kind: 'test-renamed',
        path: file.from,
        detail: stillTest
          ? `test file renamed to ${file.path}`
          : `test file renamed to ${file.path}, which test runners no longer pick up`,
        action: stillTest ? 'escalate' : 'reject',
      });
    }
    // Each distinct path once: the new one, then the old one when it differs (no Set built for one path).
    pathFindings(file.path, file.status, options, findings);
    if (oldPath !== file.path) pathFindings(oldPath, file.status, options, findings);
  }

  const reading = parsePatch(changes.patch);
  const patches: FilePatch[] = reading.ok ? reading.files : [];
  if (!reading.ok) {
    findings.push({ kind: 'patch-incomplete', path: '(patch)', detail: `the patch could not be read, so no line in it was checked: ${reading.message}`, action: 'escalate' });
  }
  for (const file of patches) contentFindings(file, options.baselineOutput ?? '', findings);

  // A loop, not flatMap: V8 11's flatMap costs ~1 µs on a one-file patch, on every tick's path.
  const inPatch = new Set<string>();
  for (const file of patches) inPatch.add(file.path).add(file.oldPath ?? file.path);
  for (const file of changes.files) {
    if (file.binary || file.status === 'deleted' || file.status === 'renamed' || inPatch.has(file.path)) continue;
    if (isTestFile(file.path) || configKindOf(file.path) !== null) {
      findings.push({
        kind: 'patch-incomplete',
        path: file.path,
        detail: 'this test or config file changed but its diff is missing (patch truncated?), so it could not be checked',
        action: 'escalate',
      });
    }
  }
  return dedupe(findings);
}

/** A changed path's own findings: a CI definition, a protected path. */
function pathFindings(path: string, status: string, options: IntegrityOptions, findings: IntegrityFinding[]): void {
  if (isCiFile(path)) {
    findings.push({ kind: 'ci-workflow-edited', path, detail: `CI definition ${status}`, action: 'escalate' });
  }
  const glob = options.protectedPaths.find((pattern) => minimatch(path, pattern, { dot: true }));
  if (glob !== undefined) {
    findings.push({ kind: 'protected-path-edited', path, detail: `matches protected path "${glob}"`, action: 'reject' });
  }
}

function dedupe(findings: IntegrityFinding[]): IntegrityFinding[] {
  // Nothing to merge in an empty or one-finding list (every honest change): no Set, no copy.
  if (findings.length < 2) return findings;
  const seen = new Set<string>();
  return findings.filter((finding) => {
    const key = `${finding.kind}\0${finding.path}\0${finding.detail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
