/**
 * `loop-runtime doctor` with stand-in agent CLIs on a PATH of our own: a
 * missing binary, a present one (its version shown), a missing key (named,
 * its value never printed), a broken and a hanging binary, the real sandbox.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../src/adapters/command-runner/bwrap-runner.js';
import { main } from '../src/cli/main.js';
import { loadProject } from '../src/project/load-project.js';
import { runDoctor, type DoctorReport } from '../src/use-cases/doctor.js';
import { sandboxRunnerFor } from '../src/composition/host-adapters.js';
import { cleanupTempDirs, makeRepo } from './git-fixtures.js';
import { cliJson } from './cli-json.js';

const CANARY = 'sk-doctor-canary-7f3a9c';
const SYSTEM_PATH = '/usr/bin:/bin';
let shims: string;
let bwrapWorks: boolean;

async function shim(directory: string, name: string, body: string): Promise<void> {
  await writeFile(join(directory, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
}

/** A loop-init style project scaffolded for Codex (`.codex/skills`), ticking at L2 with one verification command. */
async function codexProject(settings = 'level: L2\n  verify: ["true"]'): Promise<string> {
  const root = await makeRepo({ 'LOOP.md': `---\nloop-runtime:\n  ${settings}\n---\n| Daily Triage | 1d |\n`, 'README.md': '# demo\n' });
  await mkdir(join(root, '.codex', 'skills'), { recursive: true });
  return root;
}

async function doctor(cwd: string, env: Record<string, string>): Promise<{ code: number; report: DoctorReport; text: string }> {
  let json = '';
  let text = '';
  const base = { HOME: process.env['HOME'] ?? '/tmp', NO_COLOR: '1', ...env };
  const code = await main(['doctor', '--json'], { cwd, env: base, isTTY: false, stdout: (chunk) => (json += chunk), stderr: () => {} });
  await main(['doctor'], { cwd, env: base, isTTY: false, stdout: (chunk) => (text += chunk), stderr: () => {} });
  return { code, report: cliJson(json) as DoctorReport, text };
}

beforeAll(async () => {
  shims = await mkdtemp(join(tmpdir(), 'doctor-shims-'));
  // Prints its version only when no key reached it: the probe gets PATH and HOME, never credentials.
  await shim(shims, 'codex', '[ -z "$OPENAI_API_KEY" ] && echo "codex-cli 0.169.0"');
  await shim(shims, 'opencode', '[ -z "$ANTHROPIC_API_KEY" ] && echo "1.18.33"');
  bwrapWorks = (await detectSandbox({ env: { PATH: SYSTEM_PATH } })).kind === 'bwrap';
});
afterAll(cleanupTempDirs);

describe('loop-runtime doctor', () => {
  it('a missing agent: exit 3, the loop has no backend, and the fix names the package the scaffold needs', async () => {
    const root = await codexProject();
    const { code, report, text } = await doctor(root, { PATH: SYSTEM_PATH, OPENAI_API_KEY: CANARY });
    expect(code).toBe(3);
    expect(report.ok).toBe(false);
    const loop = report.loops.find((entry) => entry.id === 'daily-triage')!;
    expect(loop.backend).toBeNull();
    expect(loop.checks[0]).toMatchObject({ check: 'backend', ok: false, required: true, fix: expect.stringMatching(/^npm install @openai\/codex, .*--backend mock/) });
    expect(text).toContain('FAIL backend');
    expect(text).toContain('To fix: npm install @openai/codex');
  });

  it('a present agent with its key: exit 0, the version shown, the key named but never printed', async () => {
    const root = await codexProject();
    const { code, report, text } = await doctor(root, { PATH: `${shims}:${SYSTEM_PATH}`, OPENAI_API_KEY: CANARY });
    const loop = report.loops.find((entry) => entry.id === 'daily-triage')!;
    expect(loop.backend).toBe('codex');
    expect(loop.reason).toContain('.codex/skills');
    expect(loop.checks.find((check) => check.check === 'binary')).toMatchObject({ ok: true, detail: `${join(shims, 'codex')} (codex-cli 0.169.0)` });
    expect(loop.checks.find((check) => check.check === 'credentials')).toMatchObject({ ok: true, detail: 'OPENAI_API_KEY is set' });
    expect(report.sandbox.ok).toBe(bwrapWorks);
    expect(code).toBe(bwrapWorks ? 0 : 3);
    expect(JSON.stringify(report) + text).not.toContain(CANARY);
  });

  it('a missing key: exit 3 naming the variable to export', async () => {
    const root = await codexProject();
    const { code, report } = await doctor(root, { PATH: `${shims}:${SYSTEM_PATH}` });
    expect(code).toBe(3);
    const credentials = report.loops[0]!.checks.find((check) => check.check === 'credentials');
    expect(credentials).toMatchObject({ ok: false, required: true, detail: 'none of OPENAI_API_KEY is set', fix: expect.stringContaining('export OPENAI_API_KEY=') });
  });

  it('a broken or hanging binary fails its version check within the time limit', async () => {
    const broken = await mkdtemp(join(tmpdir(), 'doctor-broken-'));
    await shim(broken, 'codex', 'echo "error while loading shared libraries" >&2; exit 127');
    const hanging = await mkdtemp(join(tmpdir(), 'doctor-hanging-'));
    await shim(hanging, 'codex', 'exec sleep 30');
    const loaded = await loadProject(await codexProject());
    if (!loaded.ok) throw new Error('expected a project');
    const binaryCheck = async (directory: string) =>
      (await runDoctor(loaded.project, { env: { PATH: `${directory}:${SYSTEM_PATH}`, OPENAI_API_KEY: CANARY }, timeoutMs: 500, sandboxRunner: sandboxRunnerFor })).loops[0]!.checks.find((check) => check.check === 'binary');
    expect(await binaryCheck(broken)).toMatchObject({ ok: false, detail: expect.stringContaining('error while loading shared libraries') });
    expect(await binaryCheck(hanging)).toMatchObject({ ok: false, detail: expect.stringContaining('no answer within 500 ms') });
  });

  it('a loop configured for the mock needs no agent and no key; a loop running no commands can live without the sandbox', async () => {
    const root = await codexProject('backend: mock');
    const loaded = await loadProject(root);
    if (!loaded.ok) throw new Error('expected a project');
    // No PATH at all: bwrap cannot be found, yet an L1 mock loop has everything it needs.
    const report = await runDoctor(loaded.project, { env: { PATH: '' }, timeoutMs: 2_000, sandboxRunner: sandboxRunnerFor });
    expect(report.sandbox).toMatchObject({ ok: false, fix: expect.stringContaining('bubblewrap') });
    expect(report.loops[0]).toMatchObject({ backend: 'mock', checks: [expect.objectContaining({ check: 'backend', ok: true }), expect.objectContaining({ check: 'sandbox', ok: false, required: false })] });
    expect(report.ok).toBe(true);
  });

  it('the twin: an L1 loop on an agent CLI needs the sandbox (the agent runs in it, refused without it)', async () => {
    const root = await codexProject('backend: codex');
    const loaded = await loadProject(root);
    if (!loaded.ok) throw new Error('expected a project');
    const report = await runDoctor(loaded.project, { env: { PATH: '', OPENAI_API_KEY: CANARY }, timeoutMs: 2_000, sandboxRunner: sandboxRunnerFor });
    expect(report.loops[0]!.checks.find((check) => check.check === 'sandbox')).toMatchObject({ ok: false, required: true, detail: expect.stringContaining('for the codex agent') });
    expect(report.ok).toBe(false);
  });

  it('opencode: the model it will run and why — chosen from the key that is set — or, with no key to choose from, exit 3 naming both fixes', async () => {
    const root = await codexProject('backend: opencode');
    const chosen = await doctor(root, { PATH: `${shims}:${SYSTEM_PATH}`, ANTHROPIC_API_KEY: CANARY });
    const loop = chosen.report.loops[0]!;
    expect(loop.reason).toContain('model anthropic/claude-sonnet-5 (ANTHROPIC_API_KEY is set; set model: to choose)');
    expect(loop.checks.find((check) => check.check === 'model')).toMatchObject({ ok: true, detail: 'model anthropic/claude-sonnet-5 (ANTHROPIC_API_KEY is set; set model: to choose)' });
    expect(chosen.text).toContain('model anthropic/claude-sonnet-5');
    expect(JSON.stringify(chosen.report) + chosen.text).not.toContain(CANARY);

    const none = await doctor(root, { PATH: `${shims}:${SYSTEM_PATH}`, OPENROUTER_API_KEY: CANARY });
    expect(none.code).toBe(3);
    expect(none.report.loops[0]!.checks.find((check) => check.check === 'model')).toMatchObject({
      ok: false, required: true, fix: expect.stringContaining('set ANTHROPIC_API_KEY (runs anthropic/claude-sonnet-5) or OPENAI_API_KEY (runs openai/gpt-6-sol)'),
    });
    expect(none.text).toContain('FAIL model');
  });
});
