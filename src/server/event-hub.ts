/**
 * One tail of the event journal per served repository, fanned out to every
 * connected page. Each line is reduced to what the Live panel needs and
 * tagged with its repository; a finished tick's full result stays in the
 * journal (the History detail reads it on demand).
 */
import type { EventTail } from '../adapters/tick-events/event-tail.js';
import type { TickEventLine } from '../adapters/tick-events/tick-events.js';
import type { ServedRepository } from './served-repository.js';

export interface LiveEvent {
  repo: string;
  loop: string;
  type: string;
  tickId: string;
  at: number;
  phase?: string;
  tokens?: number;
  note?: string;
  kind?: string;
  pid: number;
}

export function toLiveEvent(repo: string, line: TickEventLine): LiveEvent {
  const base = { repo, loop: line.loop, type: line.type, tickId: line.tickId, at: line.at, pid: line.pid };
  if (line.type === 'tick-result') return { ...base, kind: line.result.kind };
  if (line.type === 'phase-start') return { ...base, phase: line.phase };
  if (line.type === 'phase-end') return { ...base, phase: line.phase, tokens: line.tokens, ...(line.note ? { note: line.note } : {}) };
  if (line.type === 'tick-end') return { ...base, kind: line.kind };
  return base;
}

/** How many recent events a newly connected page is sent, so a reload still shows the last ticks. */
export const REPLAY_EVENTS = 200;

export class EventHub {
  private readonly listeners = new Set<(event: LiveEvent) => void>();
  private readonly tails: EventTail[] = [];
  private readonly recentEvents: LiveEvent[] = [];

  async start(repos: readonly ServedRepository[]): Promise<void> {
    for (const repo of repos) {
      for (const line of await repo.runtime.recentEvents(REPLAY_EVENTS)) this.remember(toLiveEvent(repo.id, line));
      this.tails.push(await repo.runtime.events((line) => this.publish(toLiveEvent(repo.id, line))));
    }
    this.recentEvents.sort((a, b) => a.at - b.at);
  }

  /** The last events seen (journal tail at start, then live), oldest first. */
  recent(): LiveEvent[] {
    return [...this.recentEvents];
  }

  subscribe(listener: (event: LiveEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  close(): void {
    for (const tail of this.tails) tail.close();
    this.listeners.clear();
  }

  private remember(event: LiveEvent): void {
    this.recentEvents.push(event);
    if (this.recentEvents.length > REPLAY_EVENTS) this.recentEvents.splice(0, this.recentEvents.length - REPLAY_EVENTS);
  }

  private publish(event: LiveEvent): void {
    this.remember(event);
    for (const listener of this.listeners) listener(event);
  }
}
