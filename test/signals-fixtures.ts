/**
 * The scripted parts of the signal tests (test/signals*.test.ts): a backend plugin that blocks at a chosen call and
 * a verification command that blocks after the implementer, each saying so where the test can wait for it.
 */
import { join } from 'node:path';
import { PACKAGE_ROOT } from './e2e-fixtures.js';

const CLI_PROCESS = join(PACKAGE_ROOT, 'dist', 'backends', 'shared', 'cli-process.js');

/** What each call reports having spent when it is stopped or finishes: far below every reservation. */
export const SPENT = { triage: 100, triageBlocked: 300, implement: 500, implementBlocked: 700, check: 20, checkBlocked: 40 };

/**
 * The scripted backend: `SIGNALS_BLOCK_AT` (triage, implement, check) names the call that starts a subprocess that
 * never ends, under the tick's signal, and reports how much it spent when stopped. `SIGNALS_IGNORE_STOP=1` blocks
 * without listening to the signal (a backend that does not stop: only a second signal ends it).
 * `SIGNALS_BLOCK_AT=noop` makes triage find nothing (the follow-up tick that proves nothing is left to reconcile).
 */
export const BACKEND = `
import { startCliProcess } from ${JSON.stringify(CLI_PROCESS)};
const spent = ${JSON.stringify(SPENT)};
const usage = (tokens) => ({ inputTokens: tokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 });
const blockAt = process.env.SIGNALS_BLOCK_AT ?? 'none';
async function block(request, role, tokens) {
  if (process.env.SIGNALS_IGNORE_STOP === '1') {
    process.stderr.write('signals-backend: blocked in ' + role + ', not listening\\n');
    // Busy with something that keeps the process alive (a socket, a child) and never looks at the signal.
    setInterval(() => {}, 1000);
    return new Promise(() => {});
  }
  const child = startCliProcess({ binary: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], cwd: request.workspace?.path ?? process.cwd(), env: { PATH: process.env.PATH ?? '' }, timeoutMs: 600000, killGraceMs: 200, signal: request.signal });
  process.stderr.write('signals-backend: blocked in ' + role + ', subprocess ' + child.pid + '\\n');
  const exit = await child.done;
  return { ok: false, reason: 'aborted', message: 'stopped: ' + exit.killedFor, retryable: true, usage: usage(tokens) };
}
export function createBackend() {
  return {
    specificationVersion: 'agent-backend-v2',
    name: 'signals',
    async run(request) {
      if (request.role === 'triage') {
        if (blockAt === 'triage') return block(request, 'triage', spent.triageBlocked);
        if (blockAt === 'noop') return { ok: true, role: 'triage', usage: usage(0), output: { decision: 'noop', summary: 'nothing', findings: [], items: [] } };
        return { ok: true, role: 'triage', usage: usage(spent.triage), output: { decision: 'act', summary: 'work', findings: [], items: [{ key: 'signals#1', title: 'Tidy the example module', paths: ['src/example.ts'] }] } };
      }
      if (request.role === 'implement') {
        await request.files.write('src/example.ts', 'export const answer = 43; // implemented\\n');
        process.stderr.write('signals-backend: worktree ' + request.workspace.path + '\\n');
        if (blockAt === 'implement') return block(request, 'implement', spent.implementBlocked);
        return { ok: true, role: 'implement', usage: usage(spent.implement), output: { summary: 'changed the answer', completed: true } };
      }
      if (blockAt === 'check') return block(request, 'check', spent.checkBlocked);
      return { ok: true, role: 'check', usage: usage(spent.check), output: { verdict: 'APPROVE', reasons: [] } };
    },
  };
}
`;

/** The verification command: passes at the base; after the implementer, when asked to block, marks that it runs and never ends. */
export const VERIFY = `
import { readFileSync, writeFileSync } from 'node:fs';
const changed = readFileSync('src/example.ts', 'utf8').includes('implemented');
if (changed && readFileSync('verify-mode.txt', 'utf8').trim() === 'block') {
  writeFileSync('.verify-started', String(process.pid));
  setInterval(() => {}, 1000);
}
`;

