/** Maps a TickResult onto what the state file and run log record. */
import { quoteUntrusted } from '../security/untrusted-text.js';
import { flatText } from '../text/flat-text.js';
import type { TickRecord } from '../ports/index.js';
import { isInterrupted, runLogOutcome, type TickResult } from './tick-result.js';

type RecordBase = Pick<TickRecord, 'tickId' | 'patternId' | 'startedAt' | 'finishedAt' | 'outcome' | 'kind' | 'level' | 'tokens'>;

/**
 * The common part and the case's fields as one record, every key written out in one literal (the order the run log
 * and the state file have always seen): not `{ ...base, … }` (Node 20's V8 adds each key after a leading spread
 * through a slow path), and not `Object.assign(base, fields)` either, which left six keys in a second array of
 * every record — a record the state writer keeps, every tick.
 */
function withFields(base: RecordBase, fields: Omit<TickRecord, keyof RecordBase> & Partial<Pick<TickRecord, 'kind'>>): TickRecord {
  const record: TickRecord = {
    tickId: base.tickId,
    patternId: base.patternId,
    startedAt: base.startedAt,
    finishedAt: base.finishedAt,
    outcome: base.outcome,
    kind: fields.kind ?? base.kind,
    level: base.level,
    tokens: base.tokens,
    itemsFound: fields.itemsFound,
    actionsTaken: fields.actionsTaken,
    escalations: fields.escalations,
    summary: fields.summary,
    findings: fields.findings,
    waiting: fields.waiting,
  };
  if (fields.reason !== undefined) record.reason = fields.reason;
  return record;
}

export function toTickRecord(result: TickResult): TickRecord {
  const base: RecordBase = {
    tickId: result.tickId,
    patternId: result.patternId,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
    outcome: runLogOutcome(result),
    kind: result.kind,
    level: result.level,
    tokens: result.tokens,
  };
  switch (result.kind) {
    case 'noop':
      return withFields(base, { itemsFound: 0, actionsTaken: 0, escalations: 0, summary: result.summary, findings: [], waiting: [] });
    case 'report':
      return withFields(base, {
        itemsFound: Math.max(result.items.length, result.findings.length),
        actionsTaken: 0,
        escalations: 0,
        summary: result.degradedReason ? `${result.summary} (report-only: ${result.degradedReason})` : result.summary,
        findings: result.findings,
        waiting: [],
      });
    case 'proposed':
      return withFields(base, {
        itemsFound: 1,
        actionsTaken: 1,
        escalations: 0,
        // flatText: the state writer keeps both summaries for the whole run, as one string each, not a tree of joins.
        summary: flatText`Committed ${result.commit.sha.slice(0, 12)} on ${result.commit.branch} for ${result.item.key} (${result.changes.length} file(s), verifier ${result.verification.verdict}).`,
        // Notes name the item and the change; its title (an outsider's words) only ever appears quoted.
        findings: [{ severity: 'info', summary: flatText`Fix proposed on ${result.commit.branch} for ${quoteUntrusted(result.item.key, 80)} (${result.changes.length} file(s))`, itemKey: result.item.key }],
        waiting: [],
      });
    case 'escalated':
      return withFields(base, {
        itemsFound: 1,
        actionsTaken: 0,
        escalations: 1,
        summary: result.reason,
        findings: [],
        waiting: [
          {
            itemKey: result.item.key,
            title: quoteUntrusted(result.item.title),
            loopAction: result.reason,
            humanDecision: `Review the kept change, then run \`loop-runtime approve ${result.item.key}\` or \`loop-runtime reject ${result.item.key}\`.`,
          },
        ],
      });
    case 'rejected':
      return withFields(base, {
        itemsFound: 1,
        actionsTaken: 0,
        escalations: 0,
        summary: `Attempt ${result.attempt} on ${result.item.key} rejected: ${result.reasons.join('; ')} (${result.attemptsLeft} attempt(s) left).`,
        findings: [{ severity: 'watch', summary: `Rejected attempt on ${quoteUntrusted(result.item.key, 80)}`, itemKey: result.item.key }],
        waiting: [],
      });
    case 'failed':
      if (result.stranded) {
        const { stranded } = result;
        return withFields(base, {
          kind: 'delivery-failed',
          itemsFound: 1,
          actionsTaken: 0,
          escalations: 0,
          summary: `Verified and committed ${stranded.commit.sha.slice(0, 12)} on ${stranded.commit.branch} for ${stranded.item.key}, but delivery failed: ${stranded.reason}`,
          findings: [],
          waiting: [
            {
              itemKey: stranded.item.key,
              title: quoteUntrusted(stranded.item.title),
              loopAction: `verified, delivery failed: ${stranded.reason}`,
              humanDecision: `Fix the cause, then run \`loop-runtime deliver ${stranded.worktree}\` (the loop's next tick also retries it).`,
            },
          ],
        });
      }
      return withFields(base, { itemsFound: 0, actionsTaken: 0, escalations: 0, summary: `Tick failed in ${result.phase}: ${result.message}`, findings: [], waiting: [] });
    case 'paused':
      if (isInterrupted(result)) {
        const kept = result.kept;
        return withFields(base, {
          kind: 'interrupted',
          itemsFound: kept ? 1 : 0,
          actionsTaken: 0,
          escalations: 0,
          summary: `Interrupted by a stop signal after ${result.steps.length} step(s)${kept ? `; the unverified change is kept in ${kept.branch}` : ''}.`,
          findings: [],
          waiting: kept
            ? [
                {
                  itemKey: kept.itemKey ?? kept.branch,
                  title: kept.title ?? `unverified change on ${kept.branch}`,
                  loopAction: `interrupted before verification finished; the unverified change is kept in ${kept.branch}`,
                  humanDecision: `Review the kept change (\`loop-runtime inbox\`), then run \`loop-runtime approve ${kept.itemKey ?? kept.branch}\` or \`loop-runtime reject ${kept.itemKey ?? kept.branch}\`.`,
                },
              ]
            : [],
        });
      }
      return withFields(base, { itemsFound: 0, actionsTaken: 0, escalations: 0, summary: `paused by ${result.source}`, findings: [], waiting: [] });
    case 'halted':
      return withFields(base, { itemsFound: 0, actionsTaken: 0, escalations: 0, summary: result.message, findings: [], waiting: [] });
  }
}
