/**
 * Notifications through the built CLI (`npm run build` first): a real repository, the mock backend, a daily cap
 * already spent so the tick halts (budget-exhausted), and `notify: { webhook: env:HOOK }` in LOOP.md. A receiver on
 * 127.0.0.1 gets the halt once however many ticks the cap refuses; with nothing listening the tick ends exactly the same,
 * with a note, and the halt is told on the next tick. A second repository
 * with room in its budget ticks at L2 and escalates (no verification command ran): the receiver gets the escalation.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, unreachableUrl, type WebhookReceiver } from './fakes/webhook-receiver.js';
import { CHECKOUT, GIT_IDENTITY } from './ci/scratch-project.js';
import { cliJson } from './cli-json.js';

let root: string;
let escalating: string;
let receiver: WebhookReceiver;

interface RunOutput {
  exitCode: number;
  notes?: string[];
  ticks: Array<{ kind: string; reason?: string }>;
}

function tick(hook: string, cwd = root, ...extra: string[]): Promise<{ code: number; output: RunOutput }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(CHECKOUT, 'bin', 'loop-runtime.js'), 'run', 'daily-triage', '--json', ...extra], { cwd, env: { ...process.env, ...GIT_IDENTITY, HOOK: hook, NO_COLOR: '1' } }, (error, stdout) => {
      try {
        resolve({ code: error ? Number(error.code) : 0, output: cliJson(stdout) as RunOutput });
      } catch (parseError) {
        reject(parseError instanceof Error ? parseError : new Error(String(parseError)));
      }
    });
  });
}

async function repository(cap: number): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'notify-cli-'));
  const git = (...args: string[]) => new Promise((resolve, reject) => execFile('git', args, { cwd: directory, env: { ...process.env, ...GIT_IDENTITY } }, (error) => (error ? reject(error) : resolve(null))));
  await git('init', '--quiet', '--initial-branch=main');
  await new Promise((resolve, reject) => execFile(join(CHECKOUT, 'node_modules', '.bin', 'loop-init'), [directory, '--pattern', 'daily-triage', '--tool', 'claude'], { cwd: directory }, (error) => (error ? reject(error) : resolve(null))));
  const loopMd = await readFile(join(directory, 'LOOP.md'), 'utf8');
  await writeFile(join(directory, 'LOOP.md'), `---\nloop-runtime:\n  notify: { webhook: env:HOOK, console: "http://127.0.0.1:4317" }\n  loops:\n    daily-triage: { backend: mock, dailyTokenCap: ${cap} }\n---\n${loopMd}`);
  await git('add', '-A');
  await git('commit', '--quiet', '-m', 'initial');
  return directory;
}

beforeAll(async () => {
  root = await repository(10);
  escalating = await repository(1_000_000);
  // An earlier tick spent past the 10-token cap (a settled spend line, as a real tick writes it): this tick halts.
  const now = Date.now();
  await mkdir(join(root, '.loop-runtime'), { recursive: true });
  const spend = { at: now, day: new Date(now).toISOString().slice(0, 10), patternId: 'daily-triage', tickId: 'tick-earlier', phase: 'triage', tokens: 2220, costUsd: null };
  await writeFile(join(root, '.loop-runtime', 'spend.jsonl'), `${JSON.stringify(spend)}\n`);
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver?.close();
  for (const directory of [root, escalating]) if (directory) await rm(directory, { recursive: true, force: true });
});

describe('notify: through the CLI', () => {
  it('an unreachable receiver leaves the tick as it was (same outcome, same exit code) and adds a note; the halt stays untold, so it is tried again', async () => {
    const { code, output } = await tick(await unreachableUrl());
    expect(code).toBe(2);
    expect(output.ticks.map((entry) => `${entry.kind}:${entry.reason}`)).toEqual(['halted:budget-exhausted']);
    expect(output.notes).toEqual([expect.stringMatching(/^notify: the halted notification for daily-triage was not sent: the webhook at 127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\); the tick is unaffected$/)]);
  });

  it('a budget halt reaches the receiver once across two refused ticks: the loop, the reason, the spend, the next command and the console link', async () => {
    const { code, output } = await tick(receiver.url);
    expect(code).toBe(2);
    expect(output.ticks.map((entry) => `${entry.kind}:${entry.reason}`)).toEqual(['halted:budget-exhausted']);
    expect(output.notes ?? []).toEqual([]);
    const [body] = (await receiver.received(1)) as Array<{ text: string; blocks: Array<{ text?: { text: string } }> }>;
    expect(body!.text).toMatch(/^loop-runtime: daily-triage halted \(budget-exhausted: Daily token cap reached/);
    const message = body!.blocks[0]!.text!.text;
    expect(message).toContain('Spend: 0 tokens this tick; 2220 of 10 today');
    expect(message).toContain('`loop-runtime status daily-triage`');
    expect(message).toContain('<http://127.0.0.1:4317/#/loops/daily-triage|console>');
    // The cap keeps refusing ticks today: the halt persists, and was told once.
    const again = await tick(receiver.url);
    expect(again.output.ticks.map((entry) => `${entry.kind}:${entry.reason}`)).toEqual(['halted:budget-exhausted']);
    expect(again.output.notes ?? []).toEqual([]);
    expect(receiver.bodies).toHaveLength(1);
  });

  it('an escalation reaches the receiver with the item quoted and the approve command', async () => {
    const before = receiver.bodies.length;
    const { code, output } = await tick(receiver.url, escalating, '--level', 'L2');
    expect(code).toBe(0);
    expect(output.ticks.map((entry) => entry.kind)).toEqual(['escalated']);
    expect(output.notes ?? []).toEqual([]);
    const bodies = (await receiver.received(before + 1)) as Array<{ text: string; blocks: Array<{ text?: { text: string } }> }>;
    const body = bodies[before]!;
    expect(body.text).toMatch(/^loop-runtime: daily-triage escalated a change to a human \(/);
    const message = body.blocks[0]!.text!.text;
    expect(message).toMatch(/\nItem `[^`]+`:\n> /);
    expect(message).toMatch(/`loop-runtime approve [^`]+`/);
    expect(message).toContain('Reason: The verifier asks a human: no verification command ran');
  });
});
