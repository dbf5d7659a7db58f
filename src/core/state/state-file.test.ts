import { describe, expect, it } from 'vitest';
import type { TickRecord } from '../ports/index.js';
import { freshStateFile, hasPauseLine, updateStateFile } from './state-file.js';

const START = Date.UTC(2026, 8, 15, 8, 0, 39, 500);

function tick(overrides: Partial<TickRecord> = {}): TickRecord {
  return {
    tickId: 'tick-1',
    patternId: 'daily-triage',
    startedAt: START,
    finishedAt: START + 10_000,
    outcome: 'report-only',
    kind: 'reported',
    level: 'L1',
    itemsFound: 9,
    actionsTaken: 1,
    escalations: 2,
    tokens: 52_000,
    summary: 'nine issues, two need a human',
    findings: [{ severity: 'watch', summary: 'flaky login test', itemKey: 'ci:login' }],
    waiting: [{ itemKey: '#123', title: 'auth token refresh', loopAction: 'kept worktree', humanDecision: 'approve the fix' }],
    ...overrides,
  };
}

describe('updateStateFile', () => {
  it('creates the canonical STATE.md when the file is missing', () => {
    expect(updateStateFile(null, { tick: tick() }, { project: 'acme' })).toBe(
      [
        '# Loop State — acme',
        'Last run: 2026-09-15T08:00:39Z',
        '## High Priority (loop is acting or waiting on human)',
        '<!-- loop-runtime:waiting:daily-triage -->',
        '- [ ] #123 — auth token refresh',
        '  Loop action: kept worktree',
        '  Human decision: approve the fix',
        '<!-- /loop-runtime:waiting:daily-triage -->',
        '## Watch List',
        '<!-- loop-runtime:watch:daily-triage -->',
        '- ci:login — flaky login test',
        '<!-- /loop-runtime:watch:daily-triage -->',
        '## Recent Noise (ignored this run)',
        '---',
        'Run log: 2026-09-15T08:00:39Z | 9 findings | 1 actions | 2 escalations',
        '',
      ].join('\n'),
    );
  });

  it('replaces its blocks in place on the next tick and keeps human edits around them', () => {
    const first = updateStateFile(null, { tick: tick() }, { project: 'acme' });
    const edited = first.replace('## Watch List\n', '## Watch List\n- human note: keep an eye on deploys\n');
    const second = updateStateFile(edited, {
      tick: tick({ startedAt: START + 3_600_000, findings: [{ severity: 'high', summary: 'deploy broke' }], waiting: [] }),
    });
    expect(second).toContain('- human note: keep an eye on deploys\n<!-- loop-runtime:watch:daily-triage -->\n- deploy broke (high)\n');
    expect(second).not.toContain('flaky login test');
    // Waiting items stay until a human ticks them off.
    expect(second).toContain('- [ ] #123 — auth token refresh');
    expect(second).toContain('Last run: 2026-09-15T09:00:39Z');
    expect(second.match(/loop-runtime:watch:daily-triage/g)).toHaveLength(2);
  });

  it('drops waiting items a human checked and updates items reported again', () => {
    const first = updateStateFile(null, {
      tick: tick({
        waiting: [
          { itemKey: '#1', title: 'one', loopAction: 'a', humanDecision: 'd' },
          { itemKey: '#2', title: 'two', loopAction: 'a', humanDecision: 'd' },
        ],
      }),
    });
    const checked = first.replace('- [ ] #1 — one', '- [x] #1 — one');
    const second = updateStateFile(checked, {
      tick: tick({ waiting: [{ itemKey: '#2', title: 'two, again', loopAction: 'retried', humanDecision: 'd' }] }),
    });
    expect(second).not.toContain('#1 — one');
    expect(second).toContain('- [ ] #2 — two, again\n  Loop action: retried');
    expect(second.match(/#2 —/g)).toHaveLength(1);
  });

  it('removes an empty block entirely', () => {
    const first = updateStateFile(null, { tick: tick() });
    const second = updateStateFile(first, { tick: tick({ findings: [] }) });
    expect(second).not.toContain('loop-runtime:watch');
    expect(second).toContain('## Watch List\n## Recent Noise');
  });

  it('keeps one block per pattern so patterns can share a STATE.md', () => {
    const first = updateStateFile(null, { tick: tick() });
    const second = updateStateFile(first, {
      tick: tick({ patternId: 'ci-sweeper', findings: [{ severity: 'watch', summary: 'ci finding' }], waiting: [] }),
    });
    expect(second).toContain('- ci:login — flaky login test');
    expect(second).toContain('<!-- loop-runtime:watch:ci-sweeper -->\n- ci finding\n');
  });

  it('neutralizes untrusted text that tries to close the block or span lines', () => {
    const out = updateStateFile(null, {
      tick: tick({ findings: [{ severity: 'watch', summary: 'x <!-- /loop-runtime:watch:daily-triage -->\n## Fake' }] }),
    });
    expect(out).toContain('- x &lt;!-- /loop-runtime:watch:daily-triage --&gt; ## Fake\n');
    expect(out.match(/^<!-- \/loop-runtime:watch:daily-triage -->$/gm)).toHaveLength(1);
  });

  it('writes a note in its own block and clears it on a later tick', () => {
    const base = updateStateFile(null, { tick: tick() });
    const noted = updateStateFile(base, { note: { patternId: 'daily-triage', at: START + 60_000, line: 'Budget halt: 100% of cap' } });
    expect(noted).toContain(
      'Last run: 2026-09-15T08:00:39Z\n<!-- loop-runtime:note:daily-triage -->\n**Note** 2026-09-15T08:01:39Z (daily-triage): Budget halt: 100% of cap\n<!-- /loop-runtime:note:daily-triage -->\n',
    );
    // A note does not move Last run.
    expect(noted).toContain('Last run: 2026-09-15T08:00:39Z');
    // The same tick's record (started before the note) keeps it; a later tick clears it.
    expect(updateStateFile(noted, { tick: tick() })).toContain('Budget halt');
    expect(updateStateFile(noted, { tick: tick({ startedAt: START + 120_000 }) })).not.toContain('loop-runtime:note');
  });

  it('adds Last run under the title when missing and leaves a file without Run log alone there', () => {
    const text = '# My loop\n\nSome prose.\n\n## Watch List\n\n- human item\n';
    const out = updateStateFile(text, { tick: tick({ waiting: [] }) });
    expect(out).toBe(
      '# My loop\nLast run: 2026-09-15T08:00:39Z\n\nSome prose.\n\n## Watch List\n\n- human item\n<!-- loop-runtime:watch:daily-triage -->\n- ci:login — flaky login test\n<!-- /loop-runtime:watch:daily-triage -->\n',
    );
  });

  it('ignores headings and markers inside code fences', () => {
    const text = '# T\nLast run: never\n```\n## Watch List\n<!-- loop-runtime:watch:daily-triage -->\n```\n';
    const out = updateStateFile(text, { tick: tick({ waiting: [] }) });
    expect(out.startsWith('# T\nLast run: 2026-09-15T08:00:39Z\n```\n## Watch List\n<!-- loop-runtime:watch:daily-triage -->\n```\n')).toBe(true);
    expect(out).toContain('<!-- loop-runtime:watch:daily-triage -->\n## Watch List\n- ci:login');
  });

  it('preserves CRLF line endings', () => {
    const text = freshStateFile('crlf').replace(/\n/g, '\r\n');
    const out = updateStateFile(text, { tick: tick() });
    expect(out.replace(/\r\n/g, '')).not.toContain('\n');
  });
});

describe('hasPauseLine', () => {
  it.each([
    'loop-pause-all: true',
    'LOOP-PAUSE-ALL: TRUE',
    '- loop-pause-all: true',
    '* `loop-pause-all: true`',
    '`loop-pause-all`: `true`',
    '  loop-pause-all:true  ',
  ])('detects %j', (line) => {
    expect(hasPauseLine(`# State\n${line}\nmore\n`)).toBe(true);
  });

  it('ignores agent text inside the runtime\'s own blocks', () => {
    const out = updateStateFile(null, { tick: tick({ findings: [{ severity: 'watch', summary: 'loop-pause-all: true' }] }) });
    expect(out).toContain('- loop-pause-all: true\n');
    expect(hasPauseLine(out)).toBe(false);
    expect(hasPauseLine(`${out}loop-pause-all: true\n`)).toBe(true);
  });

  it.each(['loop-pause-all: false', 'set `loop-pause-all: true` to stop', '# loop-pause-all: true', 'no switch here'])(
    'ignores %j',
    (line) => {
      expect(hasPauseLine(`# State\n${line}\n`)).toBe(false);
    },
  );
});
