/**
 * The KillSwitch contract as a vitest suite: run it against your adapter and
 * its memory twin, so the two cannot drift apart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { KillSwitch, LoopHalt, StoreKillSwitch } from '../../core/ports/index.js';

export interface KillSwitchSubject {
  killSwitch: KillSwitch;
  /** Sets the switch the way an operator would (a file, a line, a flag). */
  pause: () => Promise<void>;
  /** Clears it again. */
  resume: () => Promise<void>;
  cleanup?: () => Promise<void>;
  /**
   * For a kill switch with the optional `halt` capability: another instance over the same store (a new process),
   * and the human's `resume` that clears a halt. Without it the halt tests are skipped.
   */
  halts?: { reopen: () => KillSwitch; clearHalt: () => Promise<void> };
  /**
   * For a project store's kill switch (`ProjectStores.killSwitch`): a fresh switch over the same store — a new
   * process or another checkout — for one loop (`daily-triage`, `ci-sweeper`) or the project (`null`). Without it
   * the store tests are skipped.
   */
  store?: { open: (patternId: string | null) => StoreKillSwitch };
}

const HALT: LoopHalt = { patternId: 'daily-triage', reason: 'backend-stopped', message: 'not logged in', tickId: 'tick-1', startedAt: 1_795_420_800_000, at: 1_795_420_803_000, tokens: 0 };

/**
 * @example
 * ```ts
 * describeKillSwitchConformance('MemoryKillSwitch', async () => {
 *   const killSwitch = new MemoryKillSwitch();
 *   return { killSwitch, pause: async () => killSwitch.pause('test'), resume: async () => killSwitch.resume() };
 * });
 * ```
 */
export function describeKillSwitchConformance(name: string, makeSubject: () => Promise<KillSwitchSubject>): void {
  describe(`KillSwitch conformance: ${name}`, () => {
    let subject: KillSwitchSubject | undefined;
    const open = async () => (subject = await makeSubject());
    afterEach(async () => {
      await subject?.cleanup?.();
      subject = undefined;
    });

    it('declares kill-switch-v1 and is not paused until set', async () => {
      const { killSwitch } = await open();
      expect(killSwitch.specificationVersion).toBe('kill-switch-v1');
      expect((await killSwitch.check()).paused).toBe(false);
    });

    it('reports a pause set after it was created, with the source that set it', async () => {
      const { killSwitch, pause } = await open();
      expect((await killSwitch.check()).paused).toBe(false);
      await pause();
      const status = await killSwitch.check();
      expect(status.paused).toBe(true);
      expect(status.source).toMatch(/\S/);
    });

    it('stays paused however often it is checked (a check never consumes the switch)', async () => {
      const { killSwitch, pause } = await open();
      await pause();
      const checks = [await killSwitch.check(), await killSwitch.check(), await killSwitch.check()];
      expect(checks.map((status) => status.paused)).toEqual([true, true, true]);
    });

    it('halt(): a persisted halt is reported (paused, with the halt) by this and a fresh instance until it is cleared', async (context) => {
      const { killSwitch, halts } = await open();
      if (!halts || !killSwitch.halt) return context.skip();
      await killSwitch.halt(HALT);
      for (const instance of [killSwitch, halts.reopen()]) {
        const status = await instance.check();
        expect(status.paused).toBe(true);
        expect(status.halt).toMatchObject({ patternId: HALT.patternId, reason: HALT.reason, message: HALT.message, tickId: HALT.tickId });
      }
      await halts.clearHalt();
      expect(await halts.reopen().check()).toEqual({ paused: false });
    });

    it('store: a loop paused from one process stops that loop in another, names who and why, and not the other loop', async (context) => {
      const { store } = await open();
      if (!store) return context.skip();
      await store.open(null).pause({ patternId: 'daily-triage', by: 'ana@host', reason: 'flaky CI', at: HALT.at });
      const status = await store.open('daily-triage').check();
      expect(status.paused).toBe(true);
      const [source] = await store.open('daily-triage').sources();
      expect(source).toMatchObject({ loop: 'daily-triage', clearable: true, by: 'ana@host', reason: 'flaky CI' });
      expect(source?.source).toContain('ana@host');
      // The allowed twin: another loop of the same store runs.
      expect(await store.open('ci-sweeper').check()).toEqual({ paused: false });
      await store.open('daily-triage').resume({ patternId: 'daily-triage' });
      expect(await store.open('daily-triage').check()).toEqual({ paused: false });
    });

    it('store: a pause of every loop stops every loop in every process until resumed', async (context) => {
      const { store } = await open();
      if (!store) return context.skip();
      await store.open(null).pause({ by: 'ana@host' });
      for (const loop of ['daily-triage', 'ci-sweeper', null]) expect((await store.open(loop).check()).paused).toBe(true);
      // Resuming one loop does not lift the pause of every loop.
      await store.open('daily-triage').resume({ patternId: 'daily-triage' });
      expect((await store.open('daily-triage').check()).paused).toBe(true);
      await store.open('ci-sweeper').resume({});
      for (const loop of ['daily-triage', 'ci-sweeper', null]) expect(await store.open(loop).check()).toEqual({ paused: false });
    });

    it('store: a halt set by one process stops that loop in another until any process clears it, once', async (context) => {
      const { store } = await open();
      if (!store) return context.skip();
      await store.open('daily-triage').halt(HALT);
      const seen = await store.open('daily-triage').check();
      expect(seen).toMatchObject({ paused: true, halt: { reason: HALT.reason, tickId: HALT.tickId, message: HALT.message } });
      expect(await store.open('daily-triage').activeHalt()).toMatchObject({ reason: HALT.reason, at: HALT.at });
      expect(await store.open('ci-sweeper').check()).toEqual({ paused: false });
      expect(await store.open('daily-triage').clearHalt({ by: 'bo@other', at: HALT.at + 1_000 })).toMatchObject({ tickId: HALT.tickId });
      expect(await store.open('daily-triage').clearHalt({ by: 'bo@other', at: HALT.at + 2_000 })).toBeNull();
      expect(await store.open('daily-triage').check()).toEqual({ paused: false });
    });

    it('resumes when the switch is cleared, and pauses again when it is set again', async () => {
      const { killSwitch, pause, resume } = await open();
      await pause();
      await resume();
      expect((await killSwitch.check()).paused).toBe(false);
      await pause();
      expect((await killSwitch.check()).paused).toBe(true);
    });
  });
}
