/**
 * Codex budget overshoot: the real `codex` binary against a loopback
 * Responses API whose model streams text without end. The backend's meter
 * kills codex's process group when the call reaches its reservation; what
 * is measured is how many tokens were spent past a 5,000-token reservation
 * before the kill landed (median of 3 runs). Needs `dist/` and
 * node_modules/.bin/codex; returns null when codex is not installed.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESERVATION = 5_000;

/** POST /v1/responses → an SSE stream of 400-character text deltas until the client goes away. */
async function startRunawayModel() {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', async () => {
      const send = (event) => response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      send({ type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } });
      send({ type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] } });
      const delta = { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'x'.repeat(400) };
      while (!response.destroyed && !response.writableEnded) {
        if (!send(delta)) await new Promise((resolve) => response.once('drain', resolve).once('close', resolve));
        else await new Promise((resolve) => setImmediate(resolve));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
}

export async function benchCodexOvershoot() {
  const binary = join(root, 'node_modules', '.bin', 'codex');
  if (!existsSync(binary)) return null;
  const { createCodexBackend } = await import(join(root, 'dist', 'backends', 'codex', 'index.js'));
  const { conformanceRequest, makeConformanceRoot, recordingFiles } = await import(join(root, 'dist', 'src', 'testing', 'conformance', 'agent-backend-fixtures.js'));
  const project = await makeConformanceRoot();
  // Codex will not install its sandbox helper under the temp dir, so its homes live in the checkout.
  const homes = await mkdtemp(join(root, '.bench-codex-homes-'));
  const overshoots = [];
  try {
    for (let run = 0; run < 3; run++) {
      const model = await startRunawayModel();
      try {
        const backend = createCodexBackend({ binary, baseUrl: model.url, model: 'bench-codex', maxRetries: 0, projectRoot: project, homesDir: homes, killGraceMs: 300, env: { OPENAI_API_KEY: 'sk-bench' } });
        const result = await backend.run({ ...conformanceRequest('check', project, recordingFiles(project)), maxTokens: RESERVATION });
        if (result.ok || result.reason !== 'budget') throw new Error(`expected a budget kill, got ${JSON.stringify(result).slice(0, 200)}`);
        const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = result.usage;
        overshoots.push(inputTokens + outputTokens + cacheReadTokens + cacheWriteTokens - RESERVATION);
      } finally {
        await model.close();
      }
    }
  } finally {
    await rm(homes, { recursive: true, force: true });
    await rm(project, { recursive: true, force: true });
  }
  const sorted = [...overshoots].sort((a, b) => a - b);
  return { reservation: RESERVATION, medianOvershoot: sorted[1], runs: overshoots };
}
