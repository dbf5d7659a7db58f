import { describe, expect, it } from 'vitest';
import { createProgress, formatElapsed, isCi, progressMode } from './progress.js';

function fakeClock(start = Date.parse('2026-11-24T10:00:00Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('progress', () => {
  it('on a terminal: the running phase with its elapsed time from the injected clock, redrawn in place, cleared at the end', () => {
    const clock = fakeClock();
    let written = '';
    let timers = 0;
    const progress = createProgress({ mode: 'live', clock, write: (text) => (written += text), every: () => (timers++, () => timers--) });
    progress.report('verifying: npm test');
    expect(written).toBe('\r\x1b[Kverifying: npm test');
    clock.advance(8_400);
    progress.refresh();
    expect(written.endsWith('\r\x1b[Kverifying: npm test (8 s)')).toBe(true);
    progress.report('checking');
    clock.advance(125_000);
    progress.refresh();
    expect(written.endsWith('\r\x1b[Kchecking (2 min 05 s)')).toBe(true);
    expect(timers).toBe(1);
    progress.stop();
    expect(written.endsWith('\r\x1b[K')).toBe(true);
    expect(timers).toBe(0);
  });

  it('in CI: plain timestamped lines; with --json or a piped stderr outside CI: nothing', () => {
    const clock = fakeClock();
    let written = '';
    const lines = createProgress({ mode: 'lines', clock, write: (text) => (written += text) });
    lines.report('implementing');
    lines.report('');
    expect(written).toBe('2026-11-24T10:00:00.000Z implementing\n');
    expect(progressMode({ json: true, ci: true, stderrIsTTY: true })).toBe('off');
    expect(progressMode({ json: false, ci: true, stderrIsTTY: false })).toBe('lines');
    expect(progressMode({ json: false, ci: false, stderrIsTTY: true })).toBe('live');
    expect(progressMode({ json: false, ci: false, stderrIsTTY: false })).toBe('off');
    expect([isCi({ CI: 'true' }), isCi({ CI: '1' }), isCi({ CI: 'yes' }), isCi({ CI: '' }), isCi({ CI: 'false' }), isCi({})]).toEqual([true, true, true, false, false, false]);
    expect(formatElapsed(59_999)).toBe('59 s');
  });
});
