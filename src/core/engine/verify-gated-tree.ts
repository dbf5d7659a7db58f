/**
 * Verification judges exactly the tree that will be committed (`Workspace.restoreGatedTree`), and what it finds
 * on the way becomes findings: before the first run, an ignored file the change wrote that could steer the tests
 * (an ignored `conftest.py` that deselects or monkeypatches, a `sitecustomize.py`, a `.pth`) is removed — the run
 * never sees it — and named, for a human; after each run, a file the run wrote into the sources is put back and
 * named (the commit holds the reviewed tree, and a suite that rewrites tracked files is a human's call).
 */
import { steersVerification } from '../verify/ignored-files.js';
import type { IntegrityFinding } from '../verify/check-diff-integrity.js';
import type { WorkspaceHandle } from '../ports/index.js';
import type { EnginePorts } from './engine-ports.js';
import type { TickContext } from './tick-context.js';

export type GatedTreeStage = 'before verification' | 'after the change' | "after the base's tests";

const listed = (paths: readonly string[]) => `${paths.slice(0, 8).join(', ')}${paths.length > 8 ? ` and ${paths.length - 8} more` : ''}`;

/** Puts the workspace back to the gated tree at `stage`; returns the findings (none when the capability is absent). */
export async function restoreGatedTree(context: TickContext, ports: EnginePorts, handle: WorkspaceHandle, stage: GatedTreeStage): Promise<IntegrityFinding[]> {
  if (!ports.workspace.restoreGatedTree) return [];
  const restored = await ports.workspace.restoreGatedTree(handle);
  if (!restored.ok) {
    context.step('verify', `could not put the reviewed tree in place ${stage}: ${restored.message}`);
    return [{ kind: 'gated-tree-unavailable', path: '.', detail: `${restored.message}; what ran may not be what would be committed`, action: 'escalate' }];
  }
  const findings: IntegrityFinding[] = [];
  if (stage === 'before verification' && restored.removedIgnored.length > 0) {
    const steering = restored.removedIgnored.filter(steersVerification);
    context.step('verify', `before verification: removed ${restored.removedIgnored.length} ignored file(s) the change wrote (never committed, so never verified): ${listed(restored.removedIgnored)}`);
    for (const path of steering) {
      findings.push({
        kind: 'ignored-file-written',
        path,
        detail:
          'the change wrote this file where the .gitignore hides it: it would not be committed, yet a test run would load it, so verification ran without it (removed). ' +
          'To fix: commit the file if the change needs it, or leave it out',
        action: 'escalate',
      });
    }
  }
  // Before verification nothing may differ from the reviewed tree: something wrote after changes() was read.
  for (const path of restored.written) {
    findings.push({
      kind: 'source-written-by-verification',
      path,
      detail:
        stage === 'before verification'
          ? 'changed after the change was read and before verification (a still-running agent?); put back to the reviewed version'
          : `a verification run wrote into the tree to be committed (${stage}); put back to the reviewed version. To fix: make the test suite write its outputs to paths the .gitignore hides`,
      action: 'escalate',
    });
  }
  if (restored.written.length > 0) context.step('verify', `${stage}: ${restored.written.length} source file(s) differed from the reviewed tree and were put back: ${listed(restored.written)}`);
  return findings;
}
