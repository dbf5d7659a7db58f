import { describe, expect, it } from 'vitest';
import { githubRepository, parseDeliveryLedger, pullRequestCapReason, setDelivery, type DeliveryLedger } from './delivery-ledger.js';

const now = Date.parse('2026-05-01T12:00:00Z');
const caps = { maxOpenPullRequests: 3, maxPullRequestsPerHour: 2 };
const pr = (key: string, at: string) => ({ key, pattern: 'p', itemKey: key, branch: `loop/p/${key}`, kind: 'pull-request' as const, at });

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

  it('parses liberally and reads GitHub repositories from remote URLs', () => {
    expect(parseDeliveryLedger('garbage').deliveries).toEqual([]);
    expect(parseDeliveryLedger(JSON.stringify({ deliveries: [pr('a', 'x'), { bad: 1 }] })).deliveries).toHaveLength(1);
    expect(githubRepository('git@github.com:acme/demo.git')).toBe('acme/demo');
    expect(githubRepository('https://github.com/acme/demo')).toBe('acme/demo');
    expect(githubRepository('/tmp/bare-remote')).toBeNull();
  });
});
