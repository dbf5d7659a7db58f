import { afterEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, unreachableUrl, type WebhookReceiver } from '../../../test/fakes/webhook-receiver.js';
import { RuntimeSettingsSchema } from '../../core/config/schemas.js';
import type { TickResult } from '../../core/engine/tick-result.js';
import { notificationFor, quoteData, slackPayload } from './notification.js';
import { notifyTicks } from './notify-ticks.js';
import { webhookNotifier } from './webhook-notifier.js';

const base = { tickId: 'tick-1', patternId: 'ci-sweeper', level: 'L2', startedAt: 0, finishedAt: 1, tokens: 1234, budget: { spentToday: 5000, dailyTokenCap: 20000 }, steps: [] };
const hostileTitle = 'Fix build <https://evil.example|click here> <!channel> *now*';
const escalated = { ...base, kind: 'escalated', item: { key: 'issue#7', title: hostileTitle }, reason: 'touches a protected path: .github/workflows/ci.yml', changes: [], verification: null, gate: null, attempt: 1 } as unknown as TickResult;
const overrun = { ...base, kind: 'halted', reason: 'budget-overrun', message: 'spent 25000 of a 20000 reservation' } as unknown as TickResult;
const levelZero = { ...base, kind: 'halted', reason: 'level-l0', message: 'L0: observe only' } as unknown as TickResult;
const noop = { ...base, kind: 'noop', summary: 'nothing to do' } as unknown as TickResult;

let receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  receivers = [];
});
async function receiver(options?: Parameters<typeof startWebhookReceiver>[0]) {
  const started = await startWebhookReceiver(options);
  receivers.push(started);
  return started;
}

describe('notificationFor', () => {
  it('tells on an escalation (with the approve command), a budget overrun (resume) and a circuit open; not on L0 or a no-op', () => {
    expect(notificationFor(escalated)).toMatchObject({ kind: 'escalated', item: { key: 'issue#7' }, command: 'loop-runtime approve issue#7', spend: { tokens: 1234, spentToday: 5000, dailyTokenCap: 20000 } });
    expect(notificationFor(overrun)).toMatchObject({ kind: 'halted', reason: 'budget-overrun: spent 25000 of a 20000 reservation', command: 'loop-runtime resume ci-sweeper' });
    expect(notificationFor({ ...overrun, reason: 'circuit-open' } as TickResult)?.kind).toBe('circuit-open');
    expect(notificationFor(levelZero)).toBeNull();
    expect(notificationFor(noop)).toBeNull();
  });

  it('tells on a failed delivery, naming the deliver command; not on a failure in another phase', () => {
    const stranded = { item: { key: 'issue#8', title: 't' }, commit: {}, worktree: 'wt-8', reason: 'push refused' };
    expect(notificationFor({ ...base, kind: 'failed', phase: 'deliver', message: 'x', retryable: true, stranded } as unknown as TickResult)).toMatchObject({ kind: 'delivery-failed', command: 'loop-runtime deliver wt-8', reason: 'push refused' });
    expect(notificationFor({ ...base, kind: 'failed', phase: 'implement', message: 'x', retryable: true } as unknown as TickResult)).toBeNull();
  });

  it('links the console when one is configured', () => {
    expect(notificationFor(escalated, 'http://127.0.0.1:4317/')?.link).toBe('http://127.0.0.1:4317/#/loops/ci-sweeper');
  });
});

describe('slackPayload', () => {
  it('quotes item text as data: no link, mention or formatting survives', () => {
    const payload = slackPayload(notificationFor(escalated)!);
    const text = JSON.stringify(payload.blocks);
    expect(text).not.toContain('<https://evil');
    expect(text).not.toContain('<!channel>');
    expect(text).toContain(`> ${quoteData(hostileTitle)}`);
    expect(quoteData(hostileTitle)).toContain('&lt;!channel&gt;');
    expect(payload.text).toContain('loop-runtime: ci-sweeper escalated a change to a human');
  });
});

describe('the webhook notifier, against a receiver on 127.0.0.1', () => {
  it('delivers the escalation and the halt payloads (text and blocks)', async () => {
    const hook = await receiver();
    const notes: string[] = [];
    const sent = await notifyTicks([escalated, noop, overrun], { webhook: 'env:HOOK' }, { env: { HOOK: hook.url }, note: (line) => notes.push(line) });
    expect(sent).toBe(2);
    expect(notes).toEqual([]);
    const [first, second] = (await hook.received(2)) as Array<{ text: string; blocks: Array<{ text?: { text: string } }> }>;
    expect(first!.text).toMatch(/escalated/);
    expect(first!.blocks[0]!.text!.text).toContain('`loop-runtime approve issue#7`');
    expect(second!.text).toMatch(/ci-sweeper halted \(budget-overrun/);
    expect(second!.blocks[0]!.text!.text).toContain('Spend: 1234 tokens this tick; 5000 of 20000 today');
  });

  it('an unreachable receiver is a note, not an exception', async () => {
    const notes: string[] = [];
    const sent = await notifyTicks([escalated], { webhook: 'env:HOOK' }, { env: { HOOK: await unreachableUrl() }, note: (line) => notes.push(line) });
    expect(sent).toBe(0);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^notify: the escalated notification for ci-sweeper was not sent: the webhook at 127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\); the tick is unaffected$/);
  });

  it('a receiver that never answers times out as data; one that answers 500 is rejected; neither names the secret path', async () => {
    const slow = await receiver({ hang: true });
    const timedOut = await webhookNotifier({ url: slow.url, timeoutMs: 300 }).notify(notificationFor(escalated)!);
    expect(timedOut).toMatchObject({ ok: false, reason: 'timeout', retryable: true });
    const failing = await receiver({ status: 500 });
    const rejected = await webhookNotifier({ url: failing.url }).notify(notificationFor(escalated)!);
    expect(rejected).toMatchObject({ ok: false, reason: 'rejected', retryable: true, detail: { status: 500 } });
    expect(JSON.stringify([timedOut, rejected])).not.toContain('secret-part');
  });

  it('a missing environment variable is a note naming it and the fix', async () => {
    const notes: string[] = [];
    expect(await notifyTicks([overrun], { webhook: 'env:HOOK' }, { env: {}, note: (line) => notes.push(line) })).toBe(0);
    expect(notes[0]).toContain('the environment variable HOOK (notify.webhook) is not set. To fix: set HOOK');
  });
});

describe('the notify: setting', () => {
  it('takes env:NAME and refuses a literal URL, saying why', () => {
    expect(RuntimeSettingsSchema.safeParse({ notify: { webhook: 'env:LOOP_RUNTIME_WEBHOOK_URL' } }).success).toBe(true);
    const literal = RuntimeSettingsSchema.safeParse({ notify: { webhook: 'https://hooks.example.invalid/services/T/B/x' } });
    expect(literal.success).toBe(false);
    expect(JSON.stringify(literal.error?.issues)).toContain('must name the environment variable holding the webhook URL, as env:NAME');
  });
});
