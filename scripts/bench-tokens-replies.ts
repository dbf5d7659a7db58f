/**
 * The scripted model behind the token bench: the same work for every pattern
 * and both wire protocols, decided from the request itself (which role asks,
 * how many tool results it already holds), so the number of calls does not
 * depend on step order. Triage picks bug#1, the implementer reads
 * src/add.mjs, edits it and summarizes, the checker reads the file and approves;
 * a quiet triage answers noop.
 */
import { join } from 'node:path';
import type { AnthropicReply } from '../test/fakes/fake-anthropic-server.js';
import type { OpenAIReply } from '../test/fakes/fake-openai-server.js';
import type { RecordedRequest } from '../test/fakes/http-fake.js';
import { roleOfPrompt } from '../test/fakes/token-meter.js';
import { ADD_BUG_TRIAGE, worktreeOf } from '../test/e2e-fixtures.js';

const FILE = 'src/add.mjs';
const QUIET_TRIAGE = JSON.stringify({ decision: 'noop', summary: 'Nothing needs doing: no failing checks, no new issues.', findings: [], items: [] });
const SUMMARY = 'Made add() add: src/add.mjs returned a - b, now a + b. The failing test passes.';
const VERDICT = 'The diff changes one operator in src/add.mjs and the test now passes.\n## Verdict: APPROVE\n- minimal, resolves bug#1\n- no test touched';

export type TriageMode = 'act' | 'quiet';

/** Claude Code (Anthropic Messages): tool_result blocks already in the conversation decide the turn. */
export function anthropicReply(request: RecordedRequest, triage: TriageMode): AnthropicReply {
  const body = request.body ?? {};
  const role = roleOfPrompt(JSON.stringify(body.system ?? ''));
  const results = JSON.stringify(body.messages ?? []).split('"type":"tool_result"').length - 1;
  const text = (value: string): AnthropicReply => ({ content: [{ type: 'text', text: value }] });
  const tool = (name: string, input: Record<string, unknown>): AnthropicReply => ({ content: [{ type: 'tool_use', name, input }] });
  if (role === 'triage') return text(triage === 'act' ? ADD_BUG_TRIAGE : QUIET_TRIAGE);
  if (role === 'implement') {
    const file = join(worktreeOf(request), FILE);
    if (results === 0) return tool('Read', { file_path: file });
    if (results === 1) return tool('Edit', { file_path: file, old_string: 'a - b', new_string: 'a + b' });
    return text(SUMMARY);
  }
  if (role === 'check') {
    if (results === 0) return tool('Read', { file_path: join(worktreeOf(request), FILE) });
    return text(VERDICT);
  }
  return text('OK');
}

/** The OpenAI tool loop (Chat Completions): tool messages already in the conversation decide the turn. */
export function openAIReply(request: RecordedRequest, triage: TriageMode): OpenAIReply {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: string | null }>;
  const role = roleOfPrompt(messages.find((message) => message.role === 'system')?.content ?? '');
  const results = messages.filter((message) => message.role === 'tool').length;
  const call = (name: string, args: Record<string, unknown>): OpenAIReply => ({ toolCalls: [{ name, arguments: args }] });
  if (role === 'triage') return call('done', { result: triage === 'act' ? ADD_BUG_TRIAGE : QUIET_TRIAGE });
  if (role === 'implement') {
    if (results === 0) return call('read_file', { path: FILE });
    if (results === 1) return call('edit_file', { path: FILE, old_string: 'a - b', new_string: 'a + b' });
    return call('done', { result: SUMMARY });
  }
  if (role === 'check') {
    if (results === 0) return call('read_file', { path: FILE });
    return { text: VERDICT };
  }
  return { text: 'OK' };
}
