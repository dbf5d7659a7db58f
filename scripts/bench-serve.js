/**
 * `serve` numbers for `npm run bench` (reported, never asserted): idle CPU of
 * a running console over a few seconds (process.cpuUsage, no page connected
 * and with one SSE client), and /api/loops latency for a repository with 50
 * configured loops and a run log of 1,000 lines. Targets (issue 12): idle
 * under 1 % of a core, /api/loops under 50 ms.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export function scaffold(loops) {
  const repo = mkdtempSync(join(tmpdir(), 'bench-serve-'));
  const catalogue = readFileSync(join(root, 'registry.yaml'), 'utf8');
  const start = catalogue.indexOf('  - id: daily-triage');
  const template = catalogue.slice(start, catalogue.indexOf('\n  - id:', start + 5) + 1);
  const patterns = Array.from({ length: loops }, (_, index) =>
    template.replace('id: daily-triage', `id: loop-${String(index + 1).padStart(2, '0')}`).replace('name: Daily Triage', `name: Loop ${index + 1}`).replace('state: STATE.md', `state: loop-${index + 1}-state.md`),
  );
  writeFileSync(join(repo, 'registry.yaml'), `patterns:\n${patterns.join('')}`);
  const day = new Date().toISOString().slice(0, 10);
  const lines = Array.from({ length: 1000 }, (_, index) =>
    JSON.stringify({ run_id: `${day}T00:${String(Math.floor(index / 60) % 60).padStart(2, '0')}:${String(index % 60).padStart(2, '0')}Z`, pattern: `loop-${String((index % loops) + 1).padStart(2, '0')}`, duration_s: 3, items_found: 0, actions_taken: 0, escalations: 0, tokens_estimate: 1200, outcome: 'no-op', tick_id: `tick-${index}`, level: 'L1', kind: 'noop' }),
  );
  writeFileSync(join(repo, 'loop-run-log.md'), `# Loop Run Log\n\n## Recent Runs\n\n<!-- Loop appends below this line -->\n${lines.join('\n')}\n`);
  execFileSync('git', ['init', '--quiet', '--initial-branch=main'], { cwd: repo });
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.invalid', 'commit', '--quiet', '-m', 'bench'], { cwd: repo });
  return repo;
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function idleCpu(seconds) {
  const before = process.cpuUsage();
  const started = process.hrtime.bigint();
  return wait(seconds * 1000).then(() => {
    const used = process.cpuUsage(before);
    const wallUs = Number(process.hrtime.bigint() - started) / 1000;
    return Math.round(((used.user + used.system) / wallUs) * 10_000) / 100;
  });
}

export async function benchServe() {
  const { startServer } = await import(join(root, 'dist/src/server/serve.js'));
  const { systemClock } = await import(join(root, 'dist/src/adapters/clock/system-clock.js'));
  const repo = scaffold(50);
  const server = await startServer({ repos: [repo], env: {}, clock: systemClock, port: 0 });
  try {
    const get = async () => {
      const started = process.hrtime.bigint();
      // Every API read needs the token (the console is private by default).
      const response = await fetch(`${server.url}api/loops`, { headers: { 'x-loop-runtime-token': server.token } });
      const body = await response.json();
      if (body.loops.length !== 50) throw new Error(`expected 50 loops, got ${body.loops.length}`);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const coldMs = await get();
    const samples = [];
    for (let index = 0; index < 20; index++) samples.push(await get());
    samples.sort((a, b) => a - b);
    await wait(500);
    const idlePercent = await idleCpu(3);
    const controller = new AbortController();
    const stream = await fetch(`${server.url}api/events`, { signal: controller.signal, headers: { 'x-loop-runtime-token': server.token } });
    const reader = stream.body.getReader();
    await reader.read();
    const idleWithPagePercent = await idleCpu(3);
    controller.abort();
    return {
      loopsColdMs: Math.round(coldMs * 10) / 10,
      loopsMedianMs: Math.round(samples[10] * 10) / 10,
      loopsP95Ms: Math.round(samples[18] * 10) / 10,
      idlePercent,
      idleWithPagePercent,
    };
  } finally {
    await server.close();
    rmSync(repo, { recursive: true, force: true });
  }
}
