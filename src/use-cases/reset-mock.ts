/**
 * `reset <id> --mock`: removes exactly what mock runs of one loop wrote, so a
 * rehearsal outside `--dry-run` leaves no trace in real state. Every line the
 * runtime writes names its backend (`"backend":"mock"`); what carries that tag
 * and this loop's id goes, everything else stays byte for byte:
 *
 * - the mock's spend (journal lines or the fleet's rows: opens, settles, reconciles),
 * - the mock's attempts in loop-ledger.json,
 * - the mock's run-log lines,
 * - this loop's owned blocks in its state file, when its last run was a mock run
 *   (the blocks show the last tick; a real tick since then owns them),
 * - the mock's proposals in the outcome store (and their observations),
 * - `loop/<id>/mock-*` branches and their worktrees (and manifest entries).
 *
 * The state file, run log and ledger are first given back byte for byte when nothing but the rehearsal wrote them
 * since its first tick (`rehearsal-preimages.ts`); the line-by-line removal is for a file a real tick or a human
 * wrote since.
 *
 * The spend and the outcome lines are the project's shared records: they go through its store
 * (`ProjectStores.removeRehearsal`), so on Postgres the rows go, not lines of files the fleet never wrote.
 * It runs under the loop's lease of that store, so no tick of the loop writes meanwhile.
 */
import { REHEARSAL_BACKEND } from '../core/outcomes/rehearsal-backend.js';
import { resolve } from 'node:path';
import { MOCK_BACKEND } from '../adapters/budget-ledger/file-budget-ledger.js';
import { readTextOrNull, withFileLock, writeTextAtomically } from '../adapters/fs/atomic-file.js';
import { git } from '../adapters/git/git-run.js';
import type { ExecutionPlan } from '../core/plan/execution-plan.js';
import { parseRunLogLine } from '../core/state/run-log.js';
import { joinLines, scanLines, splitLines } from '../core/state/markdown-lines.js';
import { worktreeStoreFor } from '../composition/project-adapters.js';
import type { ProjectStores } from '../composition/stores/project-stores.js';
import { restorePreImages } from '../adapters/rehearsal/rehearsal-preimages.js';

/** What `reset --mock` removed. */
export interface ResetMockResult {
  loop: string;
  /** Methodology files given back byte for byte as they were before the first mock tick. */
  restored: string[];
  /** The mock's proposals (and what was observed of them) removed from the outcome store. */
  outcomes: number;
  /** The mock's spend records removed: journal lines (files) or rows (Postgres). */
  spendLines: number;
  /** The mock's attempts removed: from loop-ledger.json and, on Postgres, the attempt rows. */
  attempts: number;
  /** The mock's ticks removed from the history: run-log lines and, on Postgres, run-history rows. */
  runLogLines: number;
  /** Whether this loop's owned blocks were removed from its state file. */
  stateBlocks: boolean;
  branches: string[];
  worktrees: number;
}

/**
 * Removes the mock's records of one loop.
 *
 * @example
 * ```ts
 * const removed = await resetMock('/repo', plan, stores); // { spendLines: 6, attempts: 1, runLogLines: 1, branches: ['loop/ci-sweeper/mock-1-…'], … }
 * ```
 */
export async function resetMock(root: string, plan: ExecutionPlan, stores: Pick<ProjectStores, 'acquireLoopLease' | 'removeRehearsal'>, worktreesDir: string | null = null): Promise<ResetMockResult> {
  const id = plan.pattern.id;
  const lease = await stores.acquireLoopLease(plan);
  try {
    // Files still exactly as the rehearsal left them get their pre-image back, byte for byte; the others (a real
    // tick or a human wrote them since) lose only the mock's own lines and blocks.
    const restored = await restorePreImages(root, [plan.files.state, plan.files.runLog, plan.files.ledger]);
    const kept = (file: string) => !restored.includes(file);
    // Postgres: the rehearsal's attempts and history rows are rows too; on files they are the ledger and the run log.
    const shared = await stores.removeRehearsal(id);
    const { spendRecords: spendLines, outcomes } = shared;
    const attempts = shared.attempts + (kept(plan.files.ledger) ? await dropAttempts(resolve(root, plan.files.ledger), id) : 0);
    const fromLog = kept(plan.files.runLog) ? await dropRunLogLines(resolve(root, plan.files.runLog), id) : { removed: 0, lastWasMock: true };
    const { lastWasMock } = fromLog;
    const runLogLines = fromLog.removed + shared.runs;
    const stateBlocks = lastWasMock && kept(plan.files.state) ? await dropOwnedBlocks(resolve(root, plan.files.state), id) : false;
    const { branches, worktrees } = await dropMockBranches(root, id, worktreesDir);
    return { loop: id, restored, spendLines, attempts, runLogLines, stateBlocks, outcomes, branches, worktrees };
  } finally {
    await lease.release();
  }
}

const isMockOf = (value: { backend?: unknown }, patternMatches: boolean) => patternMatches && value.backend === MOCK_BACKEND;

/** Rewrites a file under its writers' lock (the same lock the ledgers and state writer take); an absent file stays absent. */
async function rewriteIfPresent(path: string, change: (text: string) => string): Promise<void> {
  if ((await readTextOrNull(path)) === null) return;
  await withFileLock(path, async () => {
    const old = await readTextOrNull(path);
    if (old === null) return;
    const next = change(old);
    if (next !== old) await writeTextAtomically(path, next);
  });
}

async function dropAttempts(path: string, id: string): Promise<number> {
  let removed = 0;
  await rewriteIfPresent(path, (old) => {
    const ledger = JSON.parse(old) as { attempts?: Array<{ pattern?: unknown; backend?: unknown }> };
    const attempts = ledger.attempts ?? [];
    const kept = attempts.filter((attempt) => !isMockOf(attempt, attempt.pattern === id));
    removed = attempts.length - kept.length;
    return removed === 0 ? old : `${JSON.stringify({ ...ledger, attempts: kept }, null, 2)}\n`;
  });
  return removed;
}

async function dropRunLogLines(path: string, id: string): Promise<{ removed: number; lastWasMock: boolean }> {
  let removed = 0;
  let lastWasMock = false;
  await rewriteIfPresent(path, (old) => {
    const lines = splitLines(old);
    const kept = lines.filter((line) => {
      const entry = parseRunLogLine(line.text);
      if (!entry || entry.pattern !== id || entry.tick_id === undefined) return true;
      lastWasMock = entry.backend === MOCK_BACKEND;
      return !lastWasMock;
    });
    removed = lines.length - kept.length;
    return removed === 0 ? old : joinLines(kept);
  });
  return { removed, lastWasMock };
}

async function dropOwnedBlocks(path: string, id: string): Promise<boolean> {
  let changed = false;
  await rewriteIfPresent(path, (old) => {
    const scanned = scanLines(splitLines(old));
    const drop = new Set<number>();
    for (const block of scanned.blocks) if (block.patternId === id) for (let index = block.start; index <= block.end; index++) drop.add(index);
    changed = drop.size > 0;
    return changed ? joinLines(scanned.lines.filter((_, index) => !drop.has(index))) : old;
  });
  return changed;
}

async function dropMockBranches(root: string, id: string, worktreesDir: string | null): Promise<{ branches: string[]; worktrees: number }> {
  const prefix = `loop/${id}/${REHEARSAL_BACKEND}-`;
  const store = worktreeStoreFor(root, worktreesDir);
  let worktrees = 0;
  if ((await store.read()).worktrees.some((entry) => entry.branch.startsWith(prefix))) {
    await store.update(async (manifest) => {
      const mock = manifest.worktrees.filter((entry) => entry.branch.startsWith(prefix));
      for (const entry of mock) await store.remove(store.absolutePath(entry.path));
      worktrees = mock.length;
      return { manifest: { ...manifest, worktrees: manifest.worktrees.filter((entry) => !entry.branch.startsWith(prefix)) }, result: null };
    });
  }
  const listed = (await git(root).tryRaw(['for-each-ref', '--format=%(refname:short)', `refs/heads/${prefix}*`])) ?? '';
  const branches = listed.split('\n').filter(Boolean);
  for (const branch of branches) await store.deleteBranch(branch);
  return { branches, worktrees };
}
