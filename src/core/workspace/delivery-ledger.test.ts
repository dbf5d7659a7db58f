import { describe, expect, it } from 'vitest';
import { LoopRuntimeError } from '../errors.js';
import {
  existingDeliveryState,
  formatDeliveryLedger,
  githubRepository,
  parseDeliveryLedger,
  pullRequestCapReason,
  sameReservation,
  setDelivery,
  type DeliveryEntry,
  type DeliveryLedger,
} from './delivery-ledger.js';

const now = Date.parse('2026-05-01T12:00:00Z');
const caps = { maxOpenPullRequests: 3, maxPullRequestsPerHour: 2 };
const pr = (key: string, at: string): DeliveryEntry => ({ key, pattern: 'p', itemKey: key, branch: `loop/p/${key}`, kind: 'pull-request', at });
const FILE = '.loop-runtime/deliveries.json';

function parseError(text: string): LoopRuntimeError {
  try {
    parseDeliveryLedger(text, FILE);
  } catch (error) {
    if (error instanceof LoopRuntimeError) return error;
    throw error;
  }
  throw new Error(`parsed without an error: ${text}`);
}

describe('delivery ledger', () => {
  it('caps open pull requests and pull requests per hour', () => {
    let ledger: DeliveryLedger = { version: 1, deliveries: [] };
    expect(pullRequestCapReason(ledger, 'p', 0, now, caps)).toBeNull();
    expect(pullRequestCapReason(ledger, 'p', 3, now, caps)).toMatch(/3 open loop pull request\(s\) \(cap 3\)/);
    ledger = setDelivery(ledger, pr('a', '2026-05-01T11:30:00Z'));
    ledger = setDelivery(ledger, pr('b', '2026-05-01T10:30:00Z'));
    expect(pullRequestCapReason(ledger, 'p', 1, now, caps)).toBeNull();
    ledger = setDelivery(ledger, pr('c', '2026-05-01T11:59:00Z'));
    expect(pullRequestCapReason(ledger, 'p', 1, now, caps)).toMatch(/2 loop pull request\(s\) in the last hour \(cap 2\)/);
    expect(pullRequestCapReason(ledger, 'other', 0, now, caps)).toBeNull();
  });

  it('reads a missing or empty file as empty, and round-trips a valid one', () => {
    expect(parseDeliveryLedger(null, FILE).deliveries).toEqual([]);
    expect(parseDeliveryLedger('  \n', FILE).deliveries).toEqual([]);
    const ledger = setDelivery({ version: 1, deliveries: [] }, pr('a', '2026-05-01T11:30:00.000Z'));
    expect(parseDeliveryLedger(formatDeliveryLedger(ledger), FILE)).toEqual(ledger);
  });

  it('refuses a corrupt ledger with a coded error naming the file, the bad key and the fix — never reads it as empty', () => {
    const cases: Array<[string, RegExp]> = [
      ['garbage', /not valid JSON/],
      ['{"version":1,"deliveries":[', /not valid JSON/],
      ['[]', /the top level/],
      ['{"version":2,"deliveries":[]}', /version/],
      ['{"version":1}', /deliveries/],
      [JSON.stringify({ version: 1, deliveries: [pr('a', '2026-05-01T11:30:00Z'), { bad: 1 }] }), /deliveries\[1\]\.key/],
      [JSON.stringify({ version: 1, deliveries: [{ ...pr('a', '2026-05-01T11:30:00Z'), kind: 'shipped' }] }), /deliveries\[0\]\.kind/],
      [JSON.stringify({ version: 1, deliveries: [pr('a', 'yesterday')] }), /deliveries\[0\]\.at/],
    ];
    for (const [text, why] of cases) {
      const error = parseError(text);
      expect(error.code).toBe('STATE_FAILED');
      expect(error.message).toContain(FILE);
      expect(error.message).toMatch(why);
      expect(error.message).toMatch(/To fix: move .*deliveries\.json aside/);
    }
  });

  it('tells a delivered record from a fresh and a stale pending one', () => {
    const pending: DeliveryEntry = { ...pr('a', '2026-05-01T11:00:00Z'), kind: 'pending' };
    expect(existingDeliveryState(pr('a', '2026-05-01T11:00:00Z'), now, 3_600_000)).toBe('delivered');
    expect(existingDeliveryState(pending, now, 3_600_001)).toBe('in-progress');
    expect(existingDeliveryState(pending, now, 3_600_000)).toBe('reconcile');
    expect(sameReservation({ ...pending, kind: 'pushed' }, pending)).toBe(true);
    expect(sameReservation({ ...pending, at: '2026-05-01T11:59:00Z' }, pending)).toBe(false);
    expect(sameReservation(undefined, pending)).toBe(false);
  });

  it('reads GitHub repositories from remote URLs', () => {
    expect(githubRepository('git@github.com:acme/demo.git')).toBe('acme/demo');
    expect(githubRepository('https://github.com/acme/demo')).toBe('acme/demo');
    expect(githubRepository('/tmp/bare-remote')).toBeNull();
  });
});
