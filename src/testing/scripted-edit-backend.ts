/**
 * A backend whose implementer applies a scripted edit through the
 * workspace's file access (the way a tool-loop agent writes files), with
 * triage and the checker played by the MockBackend. For verification tests
 * and the cheating benchmark: what the "agent" writes is exactly the diff
 * under test, and `calls` shows whether the checker was paid for.
 */
import { MockBackend } from '../../backends/mock/index.js';
import type { AgentBackend, AgentRequest, AgentResult, WorkspaceFiles } from '../core/ports/index.js';

export interface ScriptedEditBackendOptions {
  /** What the implementer writes. */
  edit: (files: Required<WorkspaceFiles>) => Promise<void>;
  /** The checker's verdict: `act-accept` approves, `reject` rejects (default `act-accept`). */
  checker?: 'act-accept' | 'reject';
  /** The file triage names (default src/math.js). */
  targetPath?: string;
}

/**
 * @example
 * ```ts
 * const backend = new ScriptedEditBackend({ edit: (files) => files.write('src/math.js', fixed) });
 * ```
 */
export class ScriptedEditBackend implements AgentBackend {
  readonly specificationVersion = 'agent-backend-v2' as const;
  readonly name = 'scripted-edit';
  readonly calls: Array<AgentRequest['role']> = [];
  private readonly mock: MockBackend;

  constructor(private readonly options: ScriptedEditBackendOptions) {
    this.mock = new MockBackend({ scenarios: [options.checker ?? 'act-accept'], targetPath: options.targetPath ?? 'src/math.js', recordCalls: false });
  }

  async run(request: AgentRequest): Promise<AgentResult> {
    this.calls.push(request.role);
    if (request.role !== 'implement') return this.mock.run(request);
    const files = request.files;
    if (!files?.remove) throw new Error('ScriptedEditBackend needs a workspace with files() and remove()');
    await this.options.edit({ read: files.read, write: files.write, remove: files.remove });
    return { ok: true, role: 'implement', output: { summary: 'scripted edit', completed: true }, usage: { inputTokens: 100, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: null } };
  }
}
