import type { Usage } from './usage.js';

export type EngineEvent =
  | { type: 'tick-start'; tickId: string; at: number }
  /** A phase begins: a backend call for a role, or one verification command (`detail`: the command). */
  | { type: 'phase-start'; tickId: string; phase: string; at: number; detail?: string }
  | { type: 'phase-end'; tickId: string; phase: string; at: number; tokens: number; note?: string }
  | { type: 'tick-end'; tickId: string; at: number; kind: string }
  /** The backend call of `phase` is retrying its model endpoint (the backend's `onProgress`); `at`: the call's start. */
  | { type: 'agent-retry'; tickId: string; phase: string; at: number; attempts: number; endpoint: string; failure: string }
  /**
   * One settled backend call (after phase-start for its role): what telemetry needs for a GenAI span —
   * the backend, the plan's model (null: the backend's default), the usage as settled, and the failure reason.
   */
  | { type: 'backend-call'; tickId: string; phase: string; startedAt: number; at: number; backend: string; model: string | null; usage: Usage; ok: boolean; reason?: string };

export type EngineObserver = (event: EngineEvent) => void;
