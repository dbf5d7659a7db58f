import { describe, expect, it } from 'vitest';
import { agentInstructions, withoutSections } from './instruction-documents.js';

describe('agentInstructions', () => {
  it('sends a document that repeats an earlier one once (CLAUDE.md kept as a copy of AGENTS.md)', () => {
    const kept = agentInstructions([
      { name: 'LOOP.md', text: 'Keep changes small.' },
      { name: 'AGENTS.md', text: '# Agents\n\nRun npm test.\n' },
      { name: 'CLAUDE.md', text: '# Agents\n\nRun npm test.' },
      { name: '.claude/skills/minimal-fix/SKILL.md', text: 'Change as little as possible.' },
    ]);
    expect(kept.map((document) => document.name)).toEqual(['LOOP.md', 'AGENTS.md', '.claude/skills/minimal-fix/SKILL.md']);
  });

  it('keeps a CLAUDE.md that says something else', () => {
    const kept = agentInstructions([
      { name: 'AGENTS.md', text: 'Run npm test.' },
      { name: 'CLAUDE.md', text: 'Prefer small commits.' },
    ]);
    expect(kept).toHaveLength(2);
  });

  it('leaves out the operator sections of a catalogue pattern document and keeps the agent\'s', () => {
    const [pattern] = agentInstructions([
      {
        name: 'patterns/ci-sweeper.md',
        text: '# CI Sweeper\n\n## Goal\n\nGreen main.\n\n## When to use it\n\n- busy repos\n\n## What counts as a small safe fix\n\n- an import\n\n## Kill switch\n\nA file.\n\n## Levels\n\n- L1\n',
      },
    ]);
    expect(pattern!.text).toBe('# CI Sweeper\n\n## Goal\n\nGreen main.\n\n## What counts as a small safe fix\n\n- an import\n');
  });

  it('cuts only `## ` sections, never a deeper heading or a document that is not a pattern', () => {
    expect(withoutSections('## Levels\n\nx\n### Levels\n\ny\n## Goal\n\nz\n', ['Levels'])).toBe('## Goal\n\nz\n');
    const [skill] = agentInstructions([{ name: '.claude/skills/x/SKILL.md', text: '## Levels\n\nkept\n' }]);
    expect(skill!.text).toBe('## Levels\n\nkept\n');
  });
});
