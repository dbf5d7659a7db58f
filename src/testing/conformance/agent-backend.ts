/**
 * The AgentBackend contract as a vitest suite. The mock backend and every real
 * adapter (against a local fake of its model API) run the same cases, so the
 * twins cannot drift apart silently.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { totalTokens, type AgentBackend, type AgentResult, type AgentRole, type BackendFailureReason } from '../../core/ports/index.js';
import {
  CONFORMANCE_ANSWERS,
  FORBIDDEN_FILE,
  HIDDEN_MARKER,
  IMPLEMENT_FILE,
  INJECTION_MARKER,
  PWNED_FILE,
  conformanceRequest,
  injectionItems,
  makeConformanceRoot,
  onlyInsideUntrustedBlocks,
  outputProblems,
  recordingFiles,
  snapshot,
  type ModelScript,
} from './agent-backend-fixtures.js';

export type AgentBackendConformanceCase = 'roles' | 'read-only' | 'budget' | 'max-turns' | 'abort' | 'failure-as-data' | 'untrusted-input';

export const AGENT_BACKEND_CONFORMANCE_CASES: readonly AgentBackendConformanceCase[] = [
  'roles', 'read-only', 'budget', 'max-turns', 'abort', 'failure-as-data', 'untrusted-input',
];

/** A backend built for one case, plus what its fake model saw (optional: checks that need it are skipped without). */
export interface BackendUnderTest {
  backend: AgentBackend;
  /** How many model calls the fake served so far. */
  modelCalls?(): number;
  /** Every model request body, as text: used to check where untrusted text ended up. */
  modelRequests?(): string[];
  close?(): Promise<void>;
}

export interface ConformanceContext {
  /** What the model should do in this case. */
  script: ModelScript;
  /** The temporary project root: the workspace of implement/check and the project root for triage. */
  root: string;
}

export interface AgentBackendConformanceOptions {
  /** Cases to run (default: all). Real adapters pick the ones that matter to keep the suite fast. */
  cases?: readonly AgentBackendConformanceCase[];
  /** Roles the `roles` and `read-only` cases exercise (default: all). */
  roles?: readonly AgentRole[];
  /** Per-test timeout in ms (default 30 s). */
  timeoutMs?: number;
}

const REASONS: readonly BackendFailureReason[] = [
  'error', 'timeout', 'budget', 'rate-limited', 'quota-exhausted', 'auth', 'max-turns', 'not-installed', 'aborted', 'invalid-output',
];

function expectUsage(result: AgentResult): void {
  for (const value of [result.usage.inputTokens, result.usage.outputTokens, result.usage.cacheReadTokens, result.usage.cacheWriteTokens]) {
    expect(Number.isFinite(value) && value >= 0, 'usage counts are finite, non-negative numbers').toBe(true);
  }
}

function expectFailureAsData(result: AgentResult): void {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(REASONS).toContain(result.reason);
  expect(typeof result.message === 'string' && result.message.length > 0, 'a failure has a message').toBe(true);
  expect(typeof result.retryable).toBe('boolean');
  expectUsage(result);
}

/**
 * Registers the AgentBackend contract for one backend.
 *
 * @example
 * ```ts
 * describeAgentBackendConformance('mock', ({ script }) => ({ backend: mockFor(script) }));
 * describeAgentBackendConformance('openai', openAIHarness, { cases: ['roles', 'budget', 'max-turns'] });
 * ```
 */
export function describeAgentBackendConformance(
  name: string,
  makeBackend: (context: ConformanceContext) => BackendUnderTest | Promise<BackendUnderTest>,
  options: AgentBackendConformanceOptions = {},
): void {
  const cases = new Set(options.cases ?? AGENT_BACKEND_CONFORMANCE_CASES);
  const roles = options.roles ?? (['triage', 'implement', 'check'] as const);
  const timeout = options.timeoutMs ?? 30_000;

  /** Runs `body` with a fresh root and backend; never lets run() throw past the assertion that it must not. */
  async function withBackend(script: (root: string) => ModelScript, body: (under: BackendUnderTest, root: string) => Promise<void>): Promise<void> {
    const root = await makeConformanceRoot();
    const under = await makeBackend({ script: script(root), root });
    try {
      await body(under, root);
    } finally {
      await under.close?.();
      await under.backend.close?.();
      await rm(root, { recursive: true, force: true });
    }
  }

  const run = async (backend: AgentBackend, request: Parameters<AgentBackend['run']>[0]): Promise<AgentResult> => {
    const pending = backend.run(request);
    await expect(pending, 'run() resolves; expected failures are data, never a rejection').resolves.toBeDefined();
    return pending;
  };

  describe(`AgentBackend conformance: ${name}`, () => {
    it('declares agent-backend-v2 and a name', async () => {
      await withBackend(() => ({ kind: 'tools-forever' }), async ({ backend }) => {
        expect(backend.specificationVersion).toBe('agent-backend-v2');
        expect(typeof backend.name === 'string' && backend.name.length > 0).toBe(true);
      });
    });

    if (cases.has('roles')) {
      for (const role of roles) {
        it(`answers a ${role} request with a ${role}-tagged ${role} output`, { timeout }, async () => {
          const write = role === 'implement' ? { path: IMPLEMENT_FILE, content: 'conformance\n' } : undefined;
          const script = (root: string): ModelScript => ({
            kind: 'answer', role, text: CONFORMANCE_ANSWERS[role],
            ...(write ? { write: { ...write, absolutePath: path.join(root, write.path) } } : {}),
          });
          await withBackend(script, async ({ backend }, root) => {
            const result = await run(backend, conformanceRequest(role, root, recordingFiles(root)));
            expect(result).toMatchObject({ ok: true, role });
            if (!result.ok) return;
            expect(outputProblems(role, result.output)).toEqual([]);
            expectUsage(result);
            if (role === 'implement') expect(existsSync(path.join(root, IMPLEMENT_FILE)), 'the implementer wrote its file').toBe(true);
          });
        });
      }
    }

    if (cases.has('read-only')) {
      for (const role of roles.filter((candidate) => candidate !== 'implement')) {
        it(`never writes during a read-only ${role} call, even when the model tries`, { timeout }, async () => {
          const script = (root: string): ModelScript => ({
            kind: 'answer', role, text: CONFORMANCE_ANSWERS[role],
            write: { path: FORBIDDEN_FILE, absolutePath: path.join(root, FORBIDDEN_FILE), content: 'should not exist\n' },
          });
          await withBackend(script, async (under, root) => {
            const before = await snapshot(root);
            const files = recordingFiles(root);
            const result = await run(under.backend, conformanceRequest(role, root, files));
            expect(files.writes, 'no write through files').toEqual([]);
            if (under.modelCalls) expect(under.modelCalls(), 'the model got to try its write and was answered').toBeGreaterThanOrEqual(2);
            expect(await snapshot(root), 'the workspace is byte-for-byte unchanged').toEqual(before);
            if (result.ok) expect(result.role).toBe(role);
          });
        });
      }
    }

    if (cases.has('budget')) {
      it('stops near maxTokens (at most one call beyond it) and reports the usage it spent', { timeout }, async () => {
        const tokensPerCall = 20_000;
        await withBackend(() => ({ kind: 'expensive', tokensPerCall }), async ({ backend }, root) => {
          const maxTokens = 50_000;
          const result = await run(backend, conformanceRequest('check', root, recordingFiles(root), { maxTokens, maxTurns: 30 }));
          expect(result).toMatchObject({ ok: false, reason: 'budget' });
          expectUsage(result);
          expect(totalTokens(result.usage)).toBeGreaterThan(0);
          expect(totalTokens(result.usage)).toBeLessThanOrEqual(maxTokens + tokensPerCall);
        });
      });
    }

    if (cases.has('max-turns')) {
      it('stops at maxTurns with reason max-turns when the model never finishes', { timeout }, async () => {
        await withBackend(() => ({ kind: 'tools-forever' }), async (under, root) => {
          const result = await run(under.backend, conformanceRequest('check', root, recordingFiles(root), { maxTurns: 2 }));
          expect(result).toMatchObject({ ok: false, reason: 'max-turns' });
          expectUsage(result);
          if (under.modelCalls) expect(under.modelCalls()).toBeLessThanOrEqual(2);
        });
      });
    }

    if (cases.has('abort')) {
      it('answers an already aborted signal with reason aborted, without calling the model', { timeout }, async () => {
        await withBackend(() => ({ kind: 'answer', role: 'check', text: CONFORMANCE_ANSWERS.check }), async (under, root) => {
          const controller = new AbortController();
          controller.abort();
          const result = await run(under.backend, conformanceRequest('check', root, recordingFiles(root), { signal: controller.signal }));
          expect(result).toMatchObject({ ok: false, reason: 'aborted' });
          expectFailureAsData(result);
          if (under.modelCalls) expect(under.modelCalls()).toBe(0);
        });
      });
    }

    if (cases.has('failure-as-data')) {
      it('returns a refused call as a failure value, never a thrown error, and bills nothing for it', { timeout }, async () => {
        await withBackend(() => ({ kind: 'refuse' }), async ({ backend }, root) => {
          const result = await run(backend, conformanceRequest('implement', root, recordingFiles(root)));
          expectFailureAsData(result);
          // The provider answered 401: no tokens were spent, so none may be reported (an estimate of the request is not spend).
          const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = result.usage;
          expect(inputTokens + outputTokens + cacheReadTokens + cacheWriteTokens, 'a refused call costs 0 tokens').toBe(0);
        });
      });
    }

    if (cases.has('untrusted-input')) {
      it('does not let untrusted discovered text change permissions or cause writes', { timeout }, async () => {
        const script = (root: string): ModelScript => ({
          kind: 'answer', role: 'triage', text: CONFORMANCE_ANSWERS.triage,
          write: { path: PWNED_FILE, absolutePath: path.join(root, PWNED_FILE), content: 'owned\n' },
        });
        await withBackend(script, async (under, root) => {
          const before = await snapshot(root);
          const files = recordingFiles(root);
          const request = conformanceRequest('triage', root, files, { discovered: injectionItems() });
          const result = await run(under.backend, request);
          expect(request.permissions).toEqual({ write: false, execute: false });
          expect(files.writes).toEqual([]);
          expect(existsSync(path.join(root, PWNED_FILE))).toBe(false);
          if (under.modelCalls) expect(under.modelCalls(), 'the model got to try its write and was answered').toBeGreaterThanOrEqual(2);
          expect(await snapshot(root)).toEqual(before);
          if (result.ok) {
            expect(result.role).toBe('triage');
            expect(outputProblems('triage', result.output)).toEqual([]);
          }
          for (const body of under.modelRequests?.() ?? []) {
            expect(body).not.toContain(HIDDEN_MARKER);
            expect(onlyInsideUntrustedBlocks(body, INJECTION_MARKER), 'untrusted text reaches the model only as delimited data').toBe(true);
          }
        });
      });
    }
  });
}
