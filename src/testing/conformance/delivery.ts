/**
 * The Delivery conformance suite: what every Delivery adapter (GitDelivery,
 * MemoryDelivery, yours) must do in pull-request mode, run against a harness
 * that can restart the adapter over the same durable state, crash it
 * mid-delivery, and look at the remote.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LoopRuntimeError } from '../../core/errors.js';
import type { Delivery, DeliveryRequest } from '../../core/ports/index.js';

/** Runs after the dedupe key is recorded and before the push; throwing simulates a crash there. */
export type DeliveryFault = (branch: string) => Promise<void> | void;

/** One isolated world (ledger + remote + GitHub) per test, in pull-request mode. */
export interface DeliveryHarness {
  /** The lease timeout the harness's deliveries use as `pendingTimeoutMs`. */
  readonly pendingTimeoutMs: number;
  /** The branch prefix of the loop's delivery branches. */
  readonly branchPrefix: string;
  /** Moves the clock every delivery of this harness reads. */
  advance(ms: number): void;
  /** A new adapter instance over the same ledger, remote and GitHub — a process restart. */
  open(options?: { beforePush?: DeliveryFault; maxOpenPullRequests?: number }): Delivery | Promise<Delivery>;
  /** A request for `itemKey` with a new commit on a new branch (dedupe key `<pattern>:<itemKey>`). */
  request(itemKey: string): Promise<DeliveryRequest>;
  /** Puts `branch` (already committed locally) on the remote out of band, as a process that died after pushing did. */
  pushToRemote(branch: string): Promise<void>;
  /** Opens a pull request for `head` out of band (another process, or a human). */
  openPullRequest(head: string): Promise<void>;
  /** Makes the remote and GitHub unreachable. */
  breakRemote(): Promise<void>;
  /** GitHub answers the next pull-request creation with HTTP 500 — having opened it anyway when `opened`. */
  failNextPullRequest(options: { opened: boolean }): Promise<void>;
  remoteBranches(): Promise<string[]>;
  pullRequests(): Promise<Array<{ head: string; url: string }>>;
  /** Replaces the dedupe ledger's text. */
  writeLedger(text: string): Promise<void>;
  close?(): Promise<void>;
}

class SimulatedCrash extends Error {
  constructor() {
    super('simulated crash mid-delivery');
  }
}

/**
 * Registers the suite under `describe(name)`; `make` builds a fresh harness per test.
 *
 * @example
 * ```ts
 * describeDeliveryConformance('MemoryDelivery', async () => memoryDeliveryHarness());
 * ```
 */
export function describeDeliveryConformance(name: string, make: () => Promise<DeliveryHarness>): void {
  describe(`Delivery conformance: ${name}`, () => {
    let harness: DeliveryHarness;
    beforeEach(async () => {
      harness = await make();
    });
    afterEach(async () => {
      await harness.close?.();
    });

    const loopBranches = async () => (await harness.remoteBranches()).filter((branch) => branch.startsWith(harness.branchPrefix)).sort();
    const crashing = (before: (branch: string) => Promise<void> = async () => undefined) =>
      harness.open({
        beforePush: async (branch) => {
          await before(branch);
          throw new SimulatedCrash();
        },
      });

    it('delivers the same dedupe key once: one push, one pull request, then duplicate', async () => {
      const first = await harness.request('item#1');
      const delivered = await (await harness.open()).deliver(first);
      expect(delivered).toMatchObject({ ok: true, kind: 'pull-request', branch: first.handle.branch });
      if (!delivered.ok) return;
      const again = await (await harness.open()).deliver(await harness.request('item#1'));
      expect(again).toEqual({ ok: true, kind: 'duplicate', branch: first.handle.branch, url: delivered.url });
      expect(await loopBranches()).toEqual([first.handle.branch]);
      expect(await harness.pullRequests()).toEqual([{ head: first.handle.branch, url: delivered.url }]);
      // The optional capability, where implemented: the open pull request is the item's open proposal.
      const adapter = await harness.open();
      if (adapter.openProposals) expect(await adapter.openProposals(first.patternId)).toEqual(['item#1']);
    });

    it('never reports a crash before the push as delivered: in-progress while fresh, retried after the lease timeout', async () => {
      const crashed = await harness.request('item#2');
      await expect((await crashing()).deliver(crashed)).rejects.toThrow(/simulated crash/);
      expect(await loopBranches()).toEqual([]);

      const fresh = await (await harness.open()).deliver(await harness.request('item#2'));
      expect(fresh).toMatchObject({ ok: false, reason: 'in-progress', retryable: true });
      expect(await loopBranches()).toEqual([]);

      harness.advance(harness.pendingTimeoutMs);
      const retry = await harness.request('item#2');
      const retried = await (await harness.open()).deliver(retry);
      expect(retried).toMatchObject({ ok: true, kind: 'pull-request', branch: retry.handle.branch });
      expect(await loopBranches()).toEqual([retry.handle.branch]);
      expect((await harness.pullRequests()).map((pull) => pull.head)).toEqual([retry.handle.branch]);
      expect(await (await harness.open()).deliver(await harness.request('item#2'))).toMatchObject({ ok: true, kind: 'duplicate', branch: retry.handle.branch });
    });

    it('reconciles a crash after the push: the pushed branch gets its pull request, nothing is pushed again', async () => {
      const crashed = await harness.request('item#3');
      await expect((await crashing((branch) => harness.pushToRemote(branch))).deliver(crashed)).rejects.toThrow(/simulated crash/);
      expect(await (await harness.open()).deliver(await harness.request('item#3'))).toMatchObject({ ok: false, reason: 'in-progress' });

      harness.advance(harness.pendingTimeoutMs);
      const reconciled = await (await harness.open()).deliver(await harness.request('item#3'));
      expect(reconciled).toMatchObject({ ok: true, kind: 'pull-request', branch: crashed.handle.branch });
      expect(await loopBranches()).toEqual([crashed.handle.branch]);
      const pulls = await harness.pullRequests();
      expect(pulls.map((pull) => pull.head)).toEqual([crashed.handle.branch]);
      expect(await (await harness.open()).deliver(await harness.request('item#3'))).toEqual({ ok: true, kind: 'duplicate', branch: crashed.handle.branch, url: pulls[0]!.url });
    });

    it('reconciles a crash after the pull request: answered duplicate with that pull request', async () => {
      const crashed = await harness.request('item#4');
      const crash = await crashing(async (branch) => {
        await harness.pushToRemote(branch);
        await harness.openPullRequest(branch);
      });
      await expect(crash.deliver(crashed)).rejects.toThrow(/simulated crash/);
      harness.advance(harness.pendingTimeoutMs);
      const pulls = await harness.pullRequests();
      expect(pulls).toHaveLength(1);
      const reconciled = await (await harness.open()).deliver(await harness.request('item#4'));
      expect(reconciled).toEqual({ ok: true, kind: 'duplicate', branch: crashed.handle.branch, url: pulls[0]!.url });
      expect(await harness.pullRequests()).toEqual(pulls);
      expect(await loopBranches()).toEqual([crashed.handle.branch]);
    });

    it('lets one of two processes reconciling the same crashed delivery at once deliver it; the other answers in-progress', async () => {
      await expect((await crashing()).deliver(await harness.request('item#8'))).rejects.toThrow(/simulated crash/);
      harness.advance(harness.pendingTimeoutMs);
      const [left, right] = [await harness.request('item#8'), await harness.request('item#8')];
      const results = await Promise.all([(await harness.open()).deliver(left), (await harness.open()).deliver(right)]);
      // One delivers; the other finds it in progress, or (when the winner finished first, as over a database) already delivered.
      expect(results.filter((result) => result.ok && result.kind !== 'duplicate')).toHaveLength(1);
      expect(results.filter((result) => !(result.ok && result.kind !== 'duplicate'))).toEqual([
        expect.objectContaining(results.some((result) => !result.ok) ? { ok: false, reason: 'in-progress' } : { ok: true, kind: 'duplicate' }),
      ]);
      expect(await loopBranches()).toHaveLength(1);
      expect(await harness.pullRequests()).toHaveLength(1);
    });

    it('does not report a crashed delivery delivered when the remote cannot be asked', async () => {
      await expect((await crashing()).deliver(await harness.request('item#5'))).rejects.toThrow(/simulated crash/);
      harness.advance(harness.pendingTimeoutMs);
      await harness.breakRemote();
      const unknown = await (await harness.open()).deliver(await harness.request('item#5'));
      expect(unknown).toMatchObject({ ok: false, retryable: true });
      if (unknown.ok) return;
      expect(unknown.message).toMatch(/unknown/);
    });

    it('refuses a corrupt or wrongly shaped ledger with STATE_FAILED naming the file and the fix, and pushes nothing', async () => {
      for (const text of ['{ not json', JSON.stringify({ version: 1, deliveries: [{ key: 1 }] }), JSON.stringify({ deliveries: 'none' })]) {
        await harness.writeLedger(text);
        const attempt = (await harness.open()).deliver(await harness.request('item#6'));
        await expect(attempt).rejects.toBeInstanceOf(LoopRuntimeError);
        await expect(attempt).rejects.toMatchObject({ code: 'STATE_FAILED', message: expect.stringMatching(/deliveries\.json[\s\S]*To fix: move/) });
      }
      expect(await loopBranches()).toEqual([]);
      expect(await harness.pullRequests()).toEqual([]);
    });

    for (const opened of [false, true]) {
      it(`records a pull request GitHub refuses${opened ? ' after opening it' : ''} as a failed delivery; delivering the same commit again leaves exactly one pull request`, async () => {
        const request = await harness.request('item#9');
        await harness.failNextPullRequest({ opened });
        const failed = await (await harness.open()).deliver(request);
        expect(failed).toMatchObject({ ok: false, reason: 'api', detail: { recorded: 'failed' } });
        // Recorded failed, not pending: the retry need not wait for the lease timeout.
        const retried = await (await harness.open()).deliver(request);
        expect(retried).toMatchObject({ ok: true, kind: opened ? 'duplicate' : 'pull-request', branch: request.handle.branch });
        expect((await harness.pullRequests()).map((pull) => pull.head)).toEqual([request.handle.branch]);
        expect(await loopBranches()).toEqual([request.handle.branch]);
        const again = await (await harness.open()).deliver(await harness.request('item#9'));
        expect(again).toMatchObject({ ok: true, kind: 'duplicate', branch: request.handle.branch });
      });
    }

    it('holds the open pull-request cap, counting every open loop pull request', async () => {
      for (let index = 0; index < 3; index += 1) await harness.openPullRequest(`${harness.branchPrefix}other-${index}`);
      for (let index = 0; index < 120; index += 1) await harness.openPullRequest(`feature/unrelated-${index}`);
      const capped = await (await harness.open({ maxOpenPullRequests: 3 })).deliver(await harness.request('item#7'));
      expect(capped).toMatchObject({ ok: false, reason: 'rate-limited', detail: { open: 3 } });
      expect(await loopBranches()).toEqual([]);
      const allowed = await (await harness.open({ maxOpenPullRequests: 4 })).deliver(await harness.request('item#7'));
      expect(allowed).toMatchObject({ ok: true, kind: 'pull-request' });
    });
  });
}
