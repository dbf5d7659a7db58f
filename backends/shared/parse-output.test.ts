import { describe, expect, it } from 'vitest';
import { parseCheckOutput, parseTriageOutput } from './parse-output.js';

describe('parseTriageOutput', () => {
  it('reads bare, fenced and embedded JSON', () => {
    expect(parseTriageOutput('{"decision":"noop","summary":"quiet"}')).toEqual({ ok: true, value: { decision: 'noop', summary: 'quiet', findings: [], items: [] } });
    const fenced = 'Here you go:\n```json\n{"decision":"report","summary":"s","findings":[{"severity":"high","summary":"CI red"}]}\n```';
    expect(parseTriageOutput(fenced)).toMatchObject({ ok: true, value: { decision: 'report', findings: [{ severity: 'high', summary: 'CI red' }] } });
    expect(parseTriageOutput('I think {"decision":"noop","summary":"x"} is right')).toMatchObject({ ok: true });
  });

  it('treats an unknown severity as info but rejects act without items and bad decisions', () => {
    expect(parseTriageOutput('{"decision":"report","summary":"s","findings":[{"severity":"critical","summary":"x"}]}')).toMatchObject({
      ok: true,
      value: { findings: [{ severity: 'info' }] },
    });
    const act = parseTriageOutput('{"decision":"act","summary":"s","items":[]}');
    expect(act).toMatchObject({ ok: false, message: expect.stringContaining('items') });
    expect(parseTriageOutput('{"decision":"maybe"}').ok).toBe(false);
    expect(parseTriageOutput('no json here')).toMatchObject({ ok: false, message: expect.stringContaining('To fix:') });
  });
});

describe('parseCheckOutput', () => {
  it('takes the last verdict line and its bullets', () => {
    const text = 'Quoting the task: "## Verdict: APPROVE if fine"\nBut:\n## Verdict: REJECT\n- weakens a test\n- touches CI config';
    expect(parseCheckOutput(text)).toEqual({ verdict: 'REJECT', reasons: ['weakens a test', 'touches CI config'] });
  });

  it('accepts bold and missing-colon variants', () => {
    expect(parseCheckOutput('### **Verdict: ESCALATE_HUMAN**\n- needs a product decision').verdict).toBe('ESCALATE_HUMAN');
    expect(parseCheckOutput('## Verdict APPROVE').verdict).toBe('APPROVE');
  });

  it('defaults to REJECT without a verdict line', () => {
    expect(parseCheckOutput('Looks good to me, approve!')).toEqual({ verdict: 'REJECT', reasons: [expect.stringContaining('no "## Verdict:" line')] });
  });
});
