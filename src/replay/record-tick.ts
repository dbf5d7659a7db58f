/**
 * `run <id> --record <file>`: the tick runs through ports that write down
 * every call and answer (`recordPorts`), and its history is saved, redacted,
 * once the tick has ended. The observer (progress, telemetry, the event
 * journal) is not recorded — it is an effect, not a question the engine asks.
 */
import { LoopEngine } from '../core/engine/loop-engine.js';
import type { TickResult } from '../core/engine/tick-result.js';
import { LoopRuntimeError } from '../core/errors.js';
import { recordPorts } from './port-history.js';
import type { LoopRuntime } from '../composition/create-runtime.js';
import type { Redact } from '../composition/wiring.js';
import { toRecording, writeRecording } from './recording-file.js';

/**
 * @example
 * ```ts
 * const recording = startRecording(runtime);
 * const [result] = await recording.engine.ticks(1);
 * await recording.save('loops/daily-triage/recordings/bug-1.json', result, redactorFor(env));
 * ```
 */
export function startRecording(runtime: LoopRuntime): { engine: LoopEngine; save(path: string, result: TickResult, redact: Redact): Promise<void> } {
  const { observer, ...recorded } = runtime.ports;
  const recorder = recordPorts(recorded);
  const engine = new LoopEngine(runtime.engine.plan, { ...recorder.ports, ...(observer ? { observer } : {}) });
  return {
    engine,
    async save(path, result, redact) {
      const history = recorder.history(runtime.engine.plan, result);
      await writeRecording(path, toRecording(history, result, { backend: runtime.ports.backend.name, dryRun: runtime.dryRun, observed: Boolean(observer) }, redact));
    },
  };
}

/** `--record` saves exactly one tick. */
export function checkRecordable(ticks: number, due: boolean): void {
  if (ticks !== 1 || due) {
    throw new LoopRuntimeError('USAGE', `--record saves one tick, but this run would ${due ? 'tick the due loops' : `run ${ticks} ticks`}.`, {
      fix: 'run `loop-runtime run <id> --record <file>` without --ticks or --due.',
    });
  }
}
