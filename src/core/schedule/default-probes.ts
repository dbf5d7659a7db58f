/**
 * Default discovery probes for loop-runtime's catalogue patterns: cheap,
 * read-only commands that run before any model call. When every probe finds
 * nothing the tick ends as a no-op that spends zero tokens.
 *
 * A probe that cannot tell — its tool is not installed (exit 127/126), it is
 * not authenticated, it times out, it prints something that is not JSON —
 * counts as "unknown", and an unknown probe never ends a tick: triage runs as
 * if there were no probes. So a missing `gh` costs tokens, never a silent
 * no-op. Each command checks for its own tool and exits 127 when it is
 * missing, so "not installed" is distinguishable from "found nothing".
 *
 * A loop overrides these with its own `probes:` (LOOP.md), and turns them off
 * with `probes: []`. daily-triage has none: its morning scan reads chat and
 * weighs CI, issues and commits together, which no cheap command can rule out.
 */
import type { ProbeSettings } from '../config/schemas.js';

const needs = (tool: string) => `command -v ${tool} >/dev/null 2>&1 || exit 127;`;

/** The newest run of each workflow on each branch, kept when it failed: what is red now, not what was red once. */
const FAILING_RUNS_JQ =
  '[group_by(.workflowName + "@" + .headBranch)[] | max_by(.databaseId) | select(.conclusion == "failure")] | .[:20]';

/** Open pull requests a babysitter has something to do on: changes requested, conflicts, failing checks, or approved. */
const PULL_REQUESTS_NEEDING_CARE_JQ =
  '[.[] | select(.reviewDecision == "CHANGES_REQUESTED" or .reviewDecision == "APPROVED" or .mergeable == "CONFLICTING"' +
  ' or ([.statusCheckRollup[]? | (.conclusion // .state // "")] | any(. == "FAILURE" or . == "ERROR" or . == "TIMED_OUT")))' +
  ' | {number, title, url}]';

/**
 * Items updated in the last two hours (thin-loop's cadence is 1h; twice that so a late or skipped run misses
 * nothing). gh's jq has `now` and `todate`, and GitHub's timestamps compare as strings.
 */
const UPDATED_RECENTLY_JQ = '[.[] | select(.updatedAt > (now - 7200 | todate)) | {number, title, url}]';

/** Fields of a run the probe reports (the same for `gh run list` and `gh run view`). */
const RUN_FIELDS = 'databaseId,displayTitle,headBranch,url,conclusion,workflowName';

/** Lines of a failing job's log handed to triage, runs that get one, and the width each line is cut to. */
export const FAILURE_LOG_LINES = 200;
const RUNS_WITH_LOGS = 5;
const LOG_LINE_WIDTH = 300;

/**
 * The failing CI runs, each with the tail of its failed jobs' log as `logTail` (JSON-escaped in POSIX sh: control
 * characters dropped, tabs to spaces, backslashes and quotes escaped, lines joined with \n). Triage gets the log
 * as untrusted data (see `toWorkItem`), redacted, so it can see *why* a run failed without `gh` of its own.
 */
const FAILING_RUNS_WITH_LOGS = [
  'command -v gh >/dev/null 2>&1 || exit 127;',
  `runs=$(gh run list --limit 50 --json ${RUN_FIELDS} --jq '${FAILING_RUNS_JQ}') || exit $?;`,
  `ids=$(printf '%s' "$runs" | grep -o '"databaseId":[0-9]*' | cut -d: -f2 | head -n ${RUNS_WITH_LOGS});`,
  `[ -n "$ids" ] || { printf '%s\\n' "$runs"; exit 0; };`,
  `printf '['; sep=''; for id in $ids; do`,
  `run=$(gh run view "$id" --json ${RUN_FIELDS} --jq '.') || exit $?;`,
  `log=$(gh run view "$id" --log-failed 2>/dev/null | tail -n ${FAILURE_LOG_LINES} | cut -c1-${LOG_LINE_WIDTH} | ` +
    String.raw`tr '\t' ' ' | tr -d '\000-\010\013-\037' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | awk '{printf "%s\\n", $0}');`,
  String.raw`printf '%s%s,"logTail":"%s"}' "$sep" "${'$'}{run%\}}" "$log"; sep=','; done; printf ']\n'`,
].join(' ');

/** Default probes by catalogue pattern id. */
export const DEFAULT_PROBES: Readonly<Record<string, readonly ProbeSettings[]>> = Object.freeze({
  'ci-sweeper': [
    {
      name: 'failing-ci-runs',
      command: FAILING_RUNS_WITH_LOGS,
      found: 'json-entries',
      timeoutSeconds: 120,
    },
  ],
  'pr-babysitter': [
    {
      name: 'pull-requests-needing-care',
      command: `${needs('gh')} gh pr list --state open --limit 50 --json number,title,url,reviewDecision,mergeable,statusCheckRollup --jq '${PULL_REQUESTS_NEEDING_CARE_JQ}'`,
      found: 'json-entries',
      timeoutSeconds: 60,
    },
  ],
  'issue-pr-repair': [
    {
      name: 'unassigned-bugs',
      command: `${needs('gh')} gh issue list --state open --label bug --search "no:assignee" --limit 20 --json number,title,url`,
      found: 'json-entries',
      timeoutSeconds: 60,
    },
  ],
  'issue-triage': [
    {
      name: 'unlabeled-issues',
      command: `${needs('gh')} gh issue list --state open --search "no:label" --limit 20 --json number,title,url`,
      found: 'json-entries',
      timeoutSeconds: 60,
    },
  ],
  'dependency-sweeper': [
    {
      name: 'outdated-npm-packages',
      // No package.json: not an npm project, so this probe cannot tell (another ecosystem's triage decides).
      command: `[ -f package.json ] || exit 127; ${needs('npm')} npm outdated --json`,
      found: 'json-entries',
      timeoutSeconds: 120,
    },
  ],
  'post-merge-cleanup': [
    {
      name: 'recent-commits',
      command: `${needs('git')} git log --first-parent --since='26 hours ago' --format='%h %s' -n 50`,
      found: 'non-empty',
      timeoutSeconds: 30,
    },
  ],
  'thin-loop': [
    {
      name: 'recently-updated-issues',
      command: `${needs('gh')} gh issue list --state open --limit 50 --json number,title,url,updatedAt --jq '${UPDATED_RECENTLY_JQ}'`,
      found: 'json-entries',
      timeoutSeconds: 60,
    },
    {
      name: 'recently-updated-pull-requests',
      command: `${needs('gh')} gh pr list --state open --limit 50 --json number,title,url,updatedAt --jq '${UPDATED_RECENTLY_JQ}'`,
      found: 'json-entries',
      timeoutSeconds: 60,
    },
  ],
  'changelog-drafter': [
    {
      name: 'commits-since-last-tag',
      // No tag yet: cannot tell what is unreleased, so let triage look.
      command: `${needs('git')} tag=$(git describe --tags --abbrev=0 2>/dev/null) || exit 127; git log "$tag"..HEAD --no-merges --format='%h %s' -n 200`,
      found: 'non-empty',
      timeoutSeconds: 30,
    },
  ],
});

/**
 * The default probes for a pattern id (an empty list when it has none).
 *
 * @example
 * ```ts
 * defaultProbesFor('ci-sweeper')[0]?.name; // → "failing-ci-runs"
 * defaultProbesFor('daily-triage'); // → []
 * ```
 */
export function defaultProbesFor(patternId: string): ProbeSettings[] {
  return (DEFAULT_PROBES[patternId] ?? []).map((probe) => ({ ...probe }));
}
