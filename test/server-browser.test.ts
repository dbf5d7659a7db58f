/**
 * The console as a person uses it: Debian's headless Chromium (driven by
 * playwright-core) against a real server on loopback over a repository
 * scaffolded by the real loop-init, with ticks started by the built CLI in
 * another process. No sleeps: every wait is for DOM state.
 */
import { existsSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/adapters/clock/system-clock.js';
import { startServer, type RunningServer } from '../src/server/serve.js';
import { worktreesDirFor } from '../src/adapters/workspace/worktrees-location.js';
import { CANARY, CANARY_ENV, cli, packageRoot, run, scaffoldRepository } from './server-fixtures.js';
import { cliJson } from './cli-json.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
// A ceiling for the page to settle, not a speed target: a browser on a loaded machine is slow.
const WAIT = { timeout: 60_000 };

let repo: string;
let server: RunningServer;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
const bodies: Array<{ url: string; body: string }> = [];

async function watchPage(target: Page): Promise<void> {
  target.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  target.on('pageerror', (error) => consoleErrors.push(error.message));
  target.on('response', async (response) => {
    if ((response.headers()['content-type'] ?? '').startsWith('text/event-stream')) return;
    bodies.push({ url: response.url(), body: await response.text().catch(() => '') });
  });
}

describe.skipIf(!hasChromium)(hasChromium ? 'the console in headless Chromium' : `the console in headless Chromium — skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`, () => {
  beforeAll(async () => {
    repo = await scaffoldRepository(['escalate']);
    server = await startServer({ repos: [repo], env: { ...process.env, ...CANARY_ENV }, clock: systemClock, port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await watchPage(page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('loads with no console errors and goes live', async () => {
    await page.goto(`${server.url}#token=${server.token}`);
    await page.locator('body[data-loaded="true"]').waitFor(WAIT);
    await page.locator('#live-status[data-live="connected"]').waitFor(WAIT);
    await expect.poll(() => page.locator('#loops tbody tr[data-loop="daily-triage"]').count(), WAIT).toBe(1);
    expect(await page.locator('#loops tbody tr').first().innerText()).toMatch(/L2[\s\S]*mock[\s\S]*1d/);
    // Cost per merged change has its own column (nothing merged yet in this repository).
    expect(await page.locator('#loops tbody tr[data-loop="daily-triage"] td.per-merged').innerText()).toBe('no merged change');
    // The token left the address bar (kept for this origin only).
    expect(page.url()).not.toContain('token=');
    expect(consoleErrors).toEqual([]);
  });

  it('shows a tick started from the CLI live, phase by phase, and puts its escalation in the inbox', async () => {
    const ticking = cli(repo, ['run', 'daily-triage', '--json'], CANARY_ENV);
    const card = page.locator('#live .tick[data-loop="daily-triage"]');
    await card.first().waitFor(WAIT);
    for (const phase of ['triage', 'workspace', 'implement', 'verify', 'check', 'escalate']) {
      // `verify` shows twice (the base commit, then the change): the first done chip is enough here.
      await card.first().locator(`.phase[data-phase="${phase}"][data-state="done"]`).first().waitFor(WAIT);
    }
    await page.locator('#live .tick[data-kind="escalated"]').waitFor(WAIT);
    const result = await ticking;
    expect(result.code).toBe(0);
    const summary = cliJson(result.stdout) as { ticks: Array<{ tickId: string; steps: Array<{ phase: string }> }> };
    const tick = summary.ticks[0]!;
    expect(await card.first().getAttribute('data-tick')).toBe(tick.tickId);
    // Every step the tick recorded was shown as it happened.
    const shown = await card.first().locator('.phase').evaluateAll((chips) => chips.map((chip) => chip.getAttribute('data-phase')));
    expect(shown).toEqual(tick.steps.map((step) => step.phase));
    await expect.poll(() => page.locator('#inbox .change').count(), WAIT).toBe(1);
    // History: the row opens the tick's detail with the verification evidence.
    await page.locator(`#runs tbody tr[data-tick="${tick.tickId}"]`).click();
    await page.locator('#detail:not([hidden])').waitFor(WAIT);
    await expect.poll(() => page.locator('#detail').innerText(), WAIT).toMatch(/Verification[\s\S]*\$ true → exit 0/);
  });

  it('renders the diff redacted, and Approve commits the change and empties the inbox', async () => {
    const item = page.locator('#inbox .change').first();
    const id = (await item.getAttribute('data-id'))!;
    // The agent's change quotes a secret: the diff must show it redacted.
    await appendFile(join(worktreesDirFor(repo), id, 'src', 'example.ts'), `// ${CANARY}\n`);
    await item.getByRole('button', { name: 'Show diff' }).click();
    await item.locator('pre.diff .add').first().waitFor(WAIT);
    expect(await item.locator('pre.diff').innerText()).toContain('[REDACTED]');
    const gateNow = await item.locator('p', { hasText: 'Gate now:' }).innerText();
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await item.getByRole('button', { name: 'Approve' }).click();
    await page.locator('#inbox-empty:not([hidden])').waitFor(WAIT);
    // Approve re-ran the gate: a change it still escalates is applied only after the person confirms.
    if (gateNow === 'Gate now: allowed') expect(dialogs).toEqual([]);
    else expect(dialogs).toEqual([expect.stringContaining('The gate still escalates this change')]);
    expect(await page.locator('#inbox-count').innerText()).toBe('0');
    await expect.poll(() => page.locator('#message').innerText(), WAIT).toMatch(/^Approved /);
    const { stdout } = await run('git', ['log', '--all', '--format=%B'], { cwd: repo });
    expect(stdout).toContain('Loop-Approved-By: human');
    expect(await readFile(join(repo, 'loop-run-log.md'), 'utf8')).toContain('"kind":"human-approved"');
  });

  it('Reject discards an escalated change: the inbox empties and its branch is gone', async () => {
    const ticked = await cli(repo, ['run', 'daily-triage', '--json'], CANARY_ENV);
    expect(ticked.code).toBe(0);
    expect((cliJson(ticked.stdout) as { ticks: Array<{ kind: string }> }).ticks[0]!.kind).toBe('escalated');
    await expect.poll(() => page.locator('#inbox .change').count(), WAIT).toBe(1);
    const id = (await page.locator('#inbox .change').first().getAttribute('data-id'))!;
    await page.locator('#inbox .change').first().getByRole('button', { name: 'Reject' }).click();
    await page.locator('#inbox-empty:not([hidden])').waitFor(WAIT);
    const { stdout } = await run('git', ['branch', '--list', `loop/daily-triage/${id}`], { cwd: repo });
    expect(stdout.trim()).toBe('');
    expect(await readFile(join(repo, 'loop-run-log.md'), 'utf8')).toContain('"kind":"human-rejected"');
  });

  it('Pause writes the kill switch and the next tick halts; Resume clears it', async () => {
    await page.locator('#pause-all').click();
    await expect.poll(() => page.locator('#pause-state').innerText(), WAIT).toBe('Paused by file loop-pause-all');
    expect(existsSync(join(repo, 'loop-pause-all'))).toBe(true);
    const paused = await cli(repo, ['run', 'daily-triage'], CANARY_ENV);
    expect(paused.code).toBe(2);
    expect(paused.stdout).toContain('paused (file loop-pause-all)');
    await page.locator('#live .tick[data-kind="paused"]').waitFor(WAIT);
    await page.locator('#resume-all').click();
    await expect.poll(() => page.locator('#pause-state').innerText(), WAIT).toBe('All loops may run');
    expect(existsSync(join(repo, 'loop-pause-all'))).toBe(false);
  });

  it('lays out at 1280 px and 390 px without horizontal overflow (screenshots)', async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.reload();
      await page.locator('body[data-loaded="true"]').waitFor(WAIT);
      await page.locator('#live-status[data-live="connected"]').waitFor(WAIT);
      const layout = (await page.evaluate('({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })')) as { scrollWidth: number; innerWidth: number };
      expect(layout.scrollWidth, `width ${width}`).toBeLessThanOrEqual(layout.innerWidth);
      for (const selector of ['#loops-section', '#inbox-section', '#cost-section', '#history-section', '#pause-all', '#spend-chart canvas']) {
        expect(await page.locator(selector).first().isVisible(), `${selector} at ${width}`).toBe(true);
      }
      // The README's screenshot is refreshed on request only, so test runs leave the tree unchanged.
      const update = process.env.LOOP_RUNTIME_UPDATE_SCREENSHOTS === '1' && width === 1280;
      const png = await page.screenshot({ fullPage: true, ...(update ? { path: join(packageRoot, 'docs', 'console.png') } : {}) });
      // A full-page screenshot is as wide as the page's content: wider than the viewport means something overflowed.
      expect(png.readUInt32BE(16), `screenshot width at ${width}`).toBe(width);
    }
    expect(consoleErrors).toEqual([]);
  });

  // Reads need the token too: a page opened without it shows the form and no data, then loads once it is pasted.
  it('without the token the page shows no data and asks for it; pasted, the loops load and the stream goes live', async () => {
    const fresh = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      const apiStatuses: number[] = [];
      fresh.on('response', (response) => {
        if (new URL(response.url()).pathname.startsWith('/api/')) apiStatuses.push(response.status());
      });
      await fresh.goto(server.url);
      await fresh.locator('#token-form:not([hidden])').waitFor(WAIT);
      expect(await fresh.locator('#loops tbody tr').count()).toBe(0);
      expect(await fresh.locator('#mode').innerText()).toBe('no token');
      await fresh.locator('#token-input').fill(server.token);
      await fresh.locator('#token-form button[type="submit"]').click();
      await expect.poll(() => fresh.locator('#loops tbody tr[data-loop="daily-triage"]').count(), WAIT).toBe(1);
      await fresh.locator('#live-status[data-live="connected"]').waitFor(WAIT);
      expect(await fresh.locator('#token-form').isHidden()).toBe(true);
      expect(apiStatuses.length).toBeGreaterThan(0);
      expect(apiStatuses.filter((status) => status === 401)).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it('the canary secret appears in no page, no response and no DOM', async () => {
    expect(bodies.length).toBeGreaterThan(10);
    for (const { url, body } of bodies) expect(body, url).not.toContain(CANARY);
    expect(await page.content()).not.toContain(CANARY);
  });
});
