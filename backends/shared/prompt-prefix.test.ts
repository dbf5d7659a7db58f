/**
 * Prompt caching needs a byte-identical prefix across a loop's calls: a future edit that puts volatile data
 * (tick id, item, workspace, evidence) before the instructions and the loop's facts fails here.
 */
import { describe, expect, it } from 'vitest';
import { agentRequest } from '../../test/fakes/agent-request.js';
import { commonPrefixLength } from '../../test/fakes/token-meter.js';
import { buildRolePrompt } from './prompt.js';

const instructions = [
  { name: 'patterns/fix-bugs.md', text: '# Fix bugs\n\n## Goal\n\nFix small reported bugs.\n' },
  { name: 'AGENTS.md', text: 'Run npm test before you finish.' },
  { name: '.claude/skills/minimal-fix/SKILL.md', text: '# Minimal fix\n\nChange as little as possible.' },
];

/** What a provider caches: the system prompt, then the user message. */
const whole = (prompt: { system: string; user: string }) => `${prompt.system}\n\n${prompt.user}`;

describe('buildRolePrompt: a stable prefix for prompt caching', () => {
  it('gives two items of the same loop a byte-identical prefix holding the instructions, the role and the loop facts', () => {
    const first = whole(buildRolePrompt(agentRequest('implement', '/tmp/wt-a', { instructions, tickId: 'tick-a' }), { finish: 'done-tool' }));
    const second = whole(
      buildRolePrompt(
        agentRequest('implement', '/tmp/wt-b', {
          instructions,
          tickId: 'tick-b',
          item: { key: 'issue#9', title: 'the farewell is wrong', untrustedDetail: 'It says "bye bye".' },
          workspace: { id: 'ws-2', path: '/tmp/wt-b', branch: 'loop/issue-9', baseCommit: 'HEAD', itemKey: 'issue#9' },
        }),
        { finish: 'done-tool' },
      ),
    );
    const prefix = first.slice(0, commonPrefixLength(first, second));
    for (const document of instructions) expect(prefix).toContain(document.text.trim());
    expect(prefix).toContain('You are the IMPLEMENTER role');
    expect(prefix).toContain('Goal: Fix small reported bugs.');
    // Everything before the item is shared: nothing volatile (tick id, workspace) comes earlier.
    expect(prefix.length).toBeGreaterThanOrEqual(first.indexOf('Work item:\n\n<untrusted-data'));
    expect(prefix).not.toContain('tick-a');
  });

  it('keeps triage\'s prefix through the loop facts when the probes found other items', () => {
    const one = whole(buildRolePrompt(agentRequest('triage', '/tmp', { instructions, tickId: 'tick-1' }), { finish: 'final-message' }));
    const other = whole(
      buildRolePrompt(agentRequest('triage', '/tmp', { instructions, tickId: 'tick-2', discovered: [{ key: 'run#5', title: 'CI failed' }] }), { finish: 'final-message' }),
    );
    const prefix = one.slice(0, commonPrefixLength(one, other));
    expect(prefix).toContain('Goal: Fix small reported bugs.');
    expect(prefix).toContain("Found by the loop's probes:");
  });

  it('sends each instruction once: the finish rule once, the data reminder once after several blocks', () => {
    const { system, user } = buildRolePrompt(
      agentRequest('check', '/tmp/ws', {
        evidence: [
          { command: 'npm test', exitCode: 0, signal: null, timedOut: false, durationMs: 5, output: 'ok', finishedAt: 0 },
          { command: 'npm run lint', exitCode: 0, signal: null, timedOut: false, durationMs: 5, output: 'clean', finishedAt: 0 },
        ],
        changes: { files: [{ path: 'greet.txt', status: 'modified', binary: false }], patch: '-helo\n+hello' },
      }),
      { finish: 'done-tool' },
    );
    const text = `${system}\n${user}`;
    expect(text.split('call the "done" tool').length - 1).toBe(1);
    expect(user.split('<untrusted-data source=').length - 1).toBe(4);
    expect(text.split('DATA from an untrusted source').length - 1).toBe(1);
    expect(user.trimEnd().endsWith('Do not stop without calling "done".')).toBe(true);
  });
});
