import type { KillSwitch, LoopHalt, PauseRequest, PauseSource, PauseStatus, StoreKillSwitch } from '../../core/ports/index.js';

/**
 * A kill switch tests flip by hand.
 *
 * @example
 * ```ts
 * const kill = new MemoryKillSwitch();
 * kill.pause('test');
 * await kill.check(); // { paused: true, source: 'test' }
 * ```
 */
export class MemoryKillSwitch implements KillSwitch {
  readonly specificationVersion = 'kill-switch-v1' as const;
  /** How many times `check()` was called (the engine checks before every backend call). */
  checks = 0;
  private status: PauseStatus = { paused: false };

  pause(source = 'memory'): void {
    this.status = { paused: true, source };
  }

  resume(): void {
    this.status = { paused: false };
  }

  /** The persisted halt (set by the engine through `halt()`), until `clearHalt()`. */
  halted: LoopHalt | null = null;

  async halt(record: LoopHalt): Promise<void> {
    this.halted = { ...record };
  }

  /** What `loop-runtime resume` does to the file twin: clears the halt and returns it. */
  clearHalt(): LoopHalt | null {
    const cleared = this.halted;
    this.halted = null;
    return cleared;
  }

  async check(): Promise<PauseStatus> {
    this.checks += 1;
    if (this.halted) return { paused: true, source: this.status.source ?? `halted (${this.halted.reason})`, halt: { ...this.halted } };
    return { ...this.status };
  }
}

/**
 * The memory twin of a project's store kill switch (`ProjectStores.killSwitch`): pauses and halts in one object,
 * shared by every switch it hands out — one per loop, or the project's (`null`) — as processes share a store.
 *
 * @example
 * ```ts
 * const store = new MemoryKillSwitchStore();
 * await store.for(null).pause({ by: 'ana' });
 * (await store.for('ci-sweeper').check()).paused; // → true
 * ```
 */
export class MemoryKillSwitchStore {
  private readonly pauses = new Map<string, PauseSource>();
  private readonly halts = new Map<string, LoopHalt>();

  for(patternId: string | null): StoreKillSwitch {
    const pauses = this.pauses;
    const halts = this.halts;
    const sources = async (): Promise<PauseSource[]> => {
      const halt = patternId ? halts.get(patternId) : undefined;
      const found: PauseSource[] = halt ? [{ kind: 'halt', source: `halted (${halt.reason}); loop-runtime resume ${halt.patternId} clears it`, clearable: true, since: halt.at }] : [];
      for (const key of ['*', ...(patternId ? [patternId] : [])]) {
        const pause = pauses.get(key);
        if (pause) found.push({ ...pause });
      }
      return found;
    };
    return {
      specificationVersion: 'kill-switch-v1',
      async check(): Promise<PauseStatus> {
        const halt = patternId ? halts.get(patternId) : undefined;
        const [first] = await sources();
        if (halt) return { paused: true, source: first?.source ?? 'halt', halt: { ...halt } };
        return first ? { paused: true, source: first.source } : { paused: false };
      },
      async activeHalt() {
        const halt = patternId ? halts.get(patternId) : undefined;
        return halt ? { ...halt } : null;
      },
      async halt(record) {
        halts.set(record.patternId, { ...record });
      },
      async clearHalt() {
        const halt = patternId ? halts.get(patternId) : undefined;
        if (!halt || !patternId) return null;
        halts.delete(patternId);
        return halt;
      },
      async pause(request: PauseRequest = {}) {
        const what = request.patternId ?? 'every loop';
        const by = request.by ?? 'unknown';
        pauses.set(request.patternId ?? '*', {
          kind: 'store',
          source: `memory pause of ${what} by ${by}${request.reason ? `: ${request.reason}` : ''}`,
          clearable: true,
          by,
          ...(request.patternId ? { loop: request.patternId } : {}),
          ...(request.reason ? { reason: request.reason } : {}),
          ...(request.at !== undefined ? { since: request.at } : {}),
        });
      },
      async resume(scope = {}) {
        pauses.delete(scope.patternId ?? '*');
      },
      sources,
    };
  }
}
