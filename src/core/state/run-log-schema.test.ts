import { describe, expect, it } from 'vitest';
import { parseRunLogLine } from './run-log.js';
import { RunLogEntrySchema } from './run-log-schema.js';

// parseRunLogLine checks entries without zod; it must accept and reject exactly what the schema does.
const LINES = [
  '{"run_id":"2026-11-21T08:00:00Z"}',
  '{"run_id":"2026-11-21T08:00:00Z","pattern":"daily-triage","duration_s":3,"items_found":1,"actions_taken":1,"escalations":0,"tokens_estimate":1200,"outcome":"fix-proposed","tick_id":"t-1","level":"L2","kind":"proposed","backend":"mock"}',
  '{"run_id":"2026-11-21T08:00:00Z","extra":{"kept":true},"notes":["a"]}',
  '{"run_id":7}',
  '{"pattern":"daily-triage"}',
  '{"run_id":"x","tokens_estimate":"1200"}',
  '{"run_id":"x","tokens_estimate":null}',
  '{"run_id":"x","pattern":null}',
  '{"run_id":"x","duration_s":-1.5,"level":"L9"}',
  '{"run_id":"x","backend":false}',
  '{"run_id":"x","kind":{}}',
  '{}',
];

describe('run-log entries read without zod', () => {
  it.each(LINES)('%s reads as RunLogEntrySchema parses it', (line) => {
    const parsed = RunLogEntrySchema.safeParse(JSON.parse(line));
    expect(parseRunLogLine(line)).toEqual(parsed.success ? parsed.data : null);
  });

  it('arrays and scalars are not entries', () => {
    for (const line of ['[{"run_id":"x"}]', '{"run_id":"x"', '{ not json }']) {
      expect(parseRunLogLine(line)).toBeNull();
    }
  });
});
