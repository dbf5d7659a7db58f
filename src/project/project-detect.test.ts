/**
 * `mentionsPattern` skips the regex when the text does not contain the form: a seeded differential against the
 * regex alone, over every catalogue pattern and texts built around its forms, with both answers occurring.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRegistry } from '../core/config/load-registry.js';
import { mentionsPattern } from './project-detect.js';

function regexOnly(text: string, pattern: { id: string; name: string }): boolean {
  const lower = text.toLowerCase();
  const forms = new Set([pattern.id, pattern.id.replace(/-/g, ' '), pattern.name.toLowerCase()]);
  const escape = (form: string) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [...forms].some((form) => new RegExp(`(^|[^a-z0-9-])${escape(form)}($|[^a-z0-9-])`).test(lower));
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('mentionsPattern', () => {
  it('answers as the regex alone does', () => {
    const file = join(import.meta.dirname, '..', '..', 'registry.yaml');
    const loaded = loadRegistry(readFileSync(file, 'utf8'), file);
    if (!loaded.ok) throw new Error('registry.yaml does not load');
    const patterns = loaded.value.patterns;
    const random = seeded(15);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const edges = ['', ' ', '-', '|', 'x', '9', '**', '\n', '(', 'A'];
    const answers = { true: 0, false: 0 };
    for (let round = 0; round < 2_000; round++) {
      const source = pick(patterns);
      const form = pick([source.id, source.id.replace(/-/g, ' '), source.name, source.name.toUpperCase(), source.id.slice(0, 4)]);
      const text = `${pick(edges)}${pick(edges)}${form}${pick(edges)}${pick(edges)}`;
      for (const pattern of [source, pick(patterns)]) {
        const expected = regexOnly(text, pattern);
        expect(mentionsPattern(text, pattern), `${JSON.stringify(text)} / ${pattern.id}`).toBe(expected);
        answers[String(expected) as 'true' | 'false']++;
      }
    }
    expect(answers.true).toBeGreaterThan(100);
    expect(answers.false).toBeGreaterThan(100);
  });
});
