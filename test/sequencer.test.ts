/**
 * The suite's start order (test/sequencer.ts) and the script that refreshes its durations
 * (scripts/test-durations.js): longest known file first, unknown files before them, and a refresh that reads what a
 * CI log prints, hooks included.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestSpecification, Vitest } from 'vitest/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import config from '../vitest.config.js';
import { mergeDurations, parseFileTimes } from '../scripts/test-durations.js';
import { DURATIONS_FILE, fileOrder, readDurations, slowestFirst, SlowestFirstSequencer } from './sequencer.js';

const root = join(import.meta.dirname, '..');
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'sequencer-'));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('slowestFirst', () => {
  it('puts the longest known file first and the shortest last, whatever the given order', () => {
    const durations = { 'test/a.test.ts': 10, 'test/b.test.ts': 175_000, 'test/c.test.ts': 900 };
    expect(slowestFirst(['test/a.test.ts', 'test/c.test.ts', 'test/b.test.ts'], durations)).toEqual(['test/b.test.ts', 'test/c.test.ts', 'test/a.test.ts']);
    expect(slowestFirst(['test/b.test.ts', 'test/a.test.ts', 'test/c.test.ts'], durations)).toEqual(['test/b.test.ts', 'test/c.test.ts', 'test/a.test.ts']);
  });

  it('starts files it has no time for before every known one, and drops or adds none', () => {
    const durations = { 'test/slow.test.ts': 100_000, 'test/gone.test.ts': 5 };
    expect(slowestFirst(['test/slow.test.ts', 'test/new-b.test.ts', 'test/new-a.test.ts'], durations)).toEqual(['test/new-b.test.ts', 'test/new-a.test.ts', 'test/slow.test.ts']);
  });
});

describe('fileOrder', () => {
  const paths = Array.from({ length: 40 }, (_, index) => `test/f${index}.test.ts`);
  const durations = Object.fromEntries(paths.map((path, index) => [path, index]));

  it('is slowest first without a seed, and a seeded permutation with one: the same seed the same order, another seed another', () => {
    const slowest = [...paths].reverse();
    expect(fileOrder(paths, durations, undefined)).toEqual(slowest);
    expect(fileOrder(paths, durations, '')).toEqual(slowest);
    const seven = fileOrder(paths, durations, '7');
    expect([...seven].sort()).toEqual([...paths].sort());
    expect(seven).not.toEqual(slowest);
    expect(seven).not.toEqual(paths);
    expect(fileOrder(paths, durations, '7')).toEqual(seven);
    expect(fileOrder(paths, durations, '8')).not.toEqual(seven);
  });

  it('names the variable and the fix when the seed is not a number', () => {
    expect(() => fileOrder(paths, durations, 'yes')).toThrow('LOOP_RUNTIME_TEST_SHUFFLE="yes" is not a seed. To fix: set it to a whole number');
  });
});

describe('the sequencer vitest runs', () => {
  it('is the one vitest.config.ts configures', () => {
    expect(config.test?.sequence?.sequencer).toBe(SlowestFirstSequencer);
  });

  it('orders vitest\'s specifications by the checked-in durations, keyed by path from the root', async () => {
    const durations = readDurations();
    const known = Object.entries(durations).sort(([, a], [, b]) => b - a);
    expect(known.length).toBeGreaterThan(100);
    const [slowest] = known[0]!;
    const [fastest] = known.at(-1)!;
    const specification = (path: string) => ({ moduleId: join(root, path) }) as unknown as TestSpecification;
    const sequencer = new SlowestFirstSequencer({ config: { root } } as unknown as Vitest);
    const sorted = await sequencer.sort([specification(fastest), specification('test/not-timed-yet.test.ts'), specification(slowest)]);
    expect(sorted.map((spec) => spec.moduleId)).toEqual([join(root, 'test/not-timed-yet.test.ts'), join(root, slowest), join(root, fastest)]);
  });

  it('reads a missing durations file as no durations, and names a malformed one with the fix', async () => {
    expect(readDurations(join(scratch, 'absent.json'))).toEqual({});
    const bad = join(scratch, 'bad.json');
    await writeFile(bad, JSON.stringify({ 'test/a.test.ts': '12s' }));
    expect(() => readDurations(bad)).toThrow(`${bad}: "test/a.test.ts" is "12s", not a duration in milliseconds. To fix: run node scripts/test-durations.js`);
    await writeFile(bad, '[1, 2]');
    expect(() => readDurations(bad)).toThrow('expected an object of test file paths to milliseconds');
    expect(readDurations(DURATIONS_FILE)).not.toEqual({});
  });
});

describe('scripts/test-durations.js', () => {
  const LOG = [
    '\x1b[32m ✓\x1b[39m test/package-install.test.ts \x1b[2m(5 tests)\x1b[22m\x1b[33m 175014\x1b[2mms\x1b[22m\x1b[39m',
    '   ✓ the packed package > runs --version  4943ms',
    ' ✓ test/sandbox-escape.test.ts (13 tests | 1 skipped) 3158ms',
    ' × test/broken.test.ts (2 tests | 1 failed) 2.5s',
    ' ✓ src/core/plan.test.ts (77 tests) 66ms',
    ' ↓ test/needs-docker.test.ts (3 tests | 3 skipped)',
    'stdout | test/fleet-scale.test.ts > fleet at scale',
    ' ✓ |unit| src/adapters/discovery/probe-discovery.test.ts (5 tests) 5760ms',
    ' \x1b[32m✓\x1b[39m \x1b[30m\x1b[46m integration \x1b[49m\x1b[39m test/cli-sandbox.test.ts \x1b[2m(9 tests)\x1b[22m\x1b[33m 6047\x1b[2mms\x1b[22m\x1b[39m',
  ].join('\n');

  it('reads each file\'s time from a default-reporter log, ANSI colours, project labels, skips, failures and seconds included (a skipped file costs 0), and no test lines', () => {
    expect(parseFileTimes(LOG)).toEqual({
      'test/package-install.test.ts': 175_014,
      'test/sandbox-escape.test.ts': 3158,
      'test/broken.test.ts': 2500,
      'src/core/plan.test.ts': 66,
      'test/needs-docker.test.ts': 0,
      'src/adapters/discovery/probe-discovery.test.ts': 5760,
      'test/cli-sandbox.test.ts': 6047,
    });
  });

  it('replaces what the run timed, keeps other files that exist, and drops files that are gone', () => {
    const previous = { 'test/a.test.ts': 1, 'test/kept.test.ts': 2, 'test/gone.test.ts': 3 };
    const merged = mergeDurations(previous, { 'test/a.test.ts': 50, 'test/new.test.ts': 7 }, (path: string) => path !== 'test/gone.test.ts');
    expect(merged).toEqual({ 'test/a.test.ts': 50, 'test/kept.test.ts': 2, 'test/new.test.ts': 7 });
    expect(Object.keys(merged)).toEqual(['test/a.test.ts', 'test/kept.test.ts', 'test/new.test.ts']);
  });
});
