export type EngineEvent =
  | { type: 'tick-start'; tickId: string; at: number }
  | { type: 'phase-start'; tickId: string; phase: string; at: number }
  | { type: 'phase-end'; tickId: string; phase: string; at: number; tokens: number; note?: string }
  | { type: 'tick-end'; tickId: string; at: number; kind: string };

export type EngineObserver = (event: EngineEvent) => void;
