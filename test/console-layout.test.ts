/**
 * The console at the sizes operators use (1280×800, 1920×1080) in headless Chromium against `loop-runtime serve`
 * (in-process, stopped through its stop signal), on a repository wide enough to overflow (five loops, a 48-character
 * id, a month of history and spend): the Pause column is inside the viewport, the header agrees with `status` once a
 * single loop is paused, a loop with nothing running is not "running", Backend names the agent `status` names,
 * `/api/health` reports the package's version, History filters on `failed`, and the cost chart's y labels sit inside
 * the panel, its legend names loops and caps with dollars, and each cap is a line. Screenshots go to a temporary
 * directory for a human to look at.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { cli, packageRoot } from './server-fixtures.js';
import { LONG_ID, LOOP_IDS, realisticRepository } from './console-fleet-fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const WAIT = { timeout: 15_000 };

describe.skipIf(!hasChromium)('the console at 1280 and 1920 px', () => {
  let repo: string;
  let browser: Browser;
  let url = '';
  let token = '';
  let served: Promise<number>;
  let screenshots: string;
  const stop = new AbortController();

  beforeAll(async () => {
    repo = await realisticRepository();
    screenshots = await mkdtemp(join(tmpdir(), 'console-screens-'));
    let announced = '';
    const ready = new Promise<void>((resolve) => {
      served = main(['serve', '--port', '0', '--cwd', repo], {
        env: { ...process.env, NO_COLOR: '1', CI: '' },
        isTTY: false,
        signal: stop.signal,
        stderr: () => undefined,
        stdout: (text) => {
          announced += text;
          const open = /Open (http:\/\/\S+)#token=(\S+)/.exec(announced);
          if (open) {
            [, url, token] = open as unknown as [string, string, string];
            resolve();
          }
        },
      });
    });
    await ready;
    browser = await chromium.launch({ executablePath: CHROMIUM });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    stop.abort('SIGTERM');
    await served;
  });

  it('/api/health reports the package version', async () => {
    const { version } = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
    const response = await fetch(new URL('/api/health', url), { headers: { 'x-loop-runtime-token': token } });
    const body = await response.text();
    const health = JSON.parse(body) as { version: string };
    expect(response.status, body).toBe(200);
    expect(health.version).toBe(version);
    expect(health.version).not.toBe('0.0.0');
  });

  it.each([
    [1280, 800],
    [1920, 1080],
  ])('at %i×%i the Pause column is in view; the header and the row follow a paused loop', async (width, height) => {
    const page = await browser.newPage({ viewport: { width, height } });
    await page.goto(`${url}#token=${token}`);
    await page.locator('body[data-loaded="true"]').waitFor(WAIT);
    const row = page.locator('#loops tbody tr[data-loop="daily-triage"]');
    await row.waitFor(WAIT);
    // Nothing runs: the loop may run, it is not "running"; nothing is paused.
    expect(await row.locator('.pause-sources').innerText()).toBe('may run');
    expect(await page.locator('#pause-state').innerText()).toBe('All loops may run');
    const pause = row.locator('button[data-action]');
    const box = (await pause.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    const header = (await page.locator('#loops thead th').last().boundingBox())!;
    expect(header.x + header.width).toBeLessThanOrEqual(width);
    // The fixture is wide enough to need the fix: the table itself overflows its scroll box at 1280 px.
    // Unpinned, the last column would end where the table ends: past the viewport's right edge at 1280 px.
    const tableEnd = await page.locator('#loops-section .scroll').evaluate((box) => box.getBoundingClientRect().left + box.scrollWidth);
    if (width === 1280) expect(tableEnd, 'the Loops table must reach past 1280 px, or this test proves nothing').toBeGreaterThan(width);
    // Every loop's Pause button is in view, the long id's row included.
    for (const id of LOOP_IDS) {
      const button = (await page.locator(`#loops tbody tr[data-loop="${id}"] button[data-action]`).boundingBox())!;
      expect(button.x + button.width, `${id}'s Pause button at x=${button.x} in a ${width} px viewport`).toBeLessThanOrEqual(width);
    }
    await page.screenshot({ path: join(screenshots, `console-${width}x${height}.png`), fullPage: true });

    // One loop paused from the CLI: the header says so, as `status` does.
    expect((await cli(repo, ['pause', 'daily-triage', '--reason', 'layout test', '--by', 'tester'])).code).toBe(0);
    const status = await cli(repo, ['status']);
    expect(status.stdout).toContain('paused by');
    await page.reload();
    await page.locator('body[data-loaded="true"]').waitFor(WAIT);
    await expect.poll(() => page.locator('#pause-state').innerText(), WAIT).toBe(`1 of ${LOOP_IDS.length} loop(s) paused: daily-triage`);
    expect(await row.locator('.pause-sources').innerText()).toMatch(/^paused by /);
    // The longer cell of a paused loop does not push its Resume button out of view either.
    const resume = (await row.locator('button[data-action]').boundingBox())!;
    expect(resume.x + resume.width, `Resume button at x=${resume.x} in a ${width} px viewport`).toBeLessThanOrEqual(width);
    await page.screenshot({ path: join(screenshots, `console-${width}x${height}-paused.png`), fullPage: true });
    expect((await cli(repo, ['resume', 'daily-triage', '--by', 'tester'])).code).toBe(0);
    await page.close();
  }, 60_000);

  it('Backend names the agent `status` names, never `auto`', async () => {
    const status = await cli(repo, ['status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    const named = new Map((JSON.parse(status.stdout) as { data: { loops: Array<{ id: string; backend: { name: string | null } }> } }).data.loops.map((loop) => [loop.id, loop.backend.name ?? 'none installed']));
    // The two loops with no `backend:` are the ones a plan calls `auto`: the column must show what resolves instead.
    expect(named.get('post-merge-cleanup')).not.toBe('auto');
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${url}#token=${token}`);
    await page.locator('body[data-loaded="true"]').waitFor(WAIT);
    const shown = new Map<string, string>();
    for (const id of LOOP_IDS) shown.set(id, await page.locator(`#loops tbody tr[data-loop="${id}"] td`).nth(2).innerText());
    expect(Object.fromEntries(shown)).toEqual(Object.fromEntries(named));
    expect([...shown.values()]).not.toContain('auto');
    expect(shown.get('ci-sweeper')).toBe('codex');
    expect(shown.get('daily-triage')).toBe('mock');
    await page.close();
  }, 60_000);

  it.each([
    [1280, 800],
    [1920, 1080],
  ])('at %i×%i the cost chart shows readable y labels, loop-named legends with dollars and each cap as a line', async (width, height) => {
    const page = await browser.newPage({ viewport: { width, height } });
    await page.goto(`${url}#token=${token}`);
    await page.locator('body[data-loaded="true"]').waitFor(WAIT);
    await page.locator('#spend-chart .u-legend').waitFor(WAIT);
    // uPlot draws axis labels on its canvas: measure each one with the axis's own font, placed where uPlot right-aligns
    // it (left of the ticks), against the chart's and the panel's boxes.
    const measured = await page.evaluate(() => {
      // Runs in the page; this file is typed for Node, so the page's globals come through globalThis.
      const { window, document } = globalThis as unknown as { window: any; document: any };
      const chart = window.LoopConsole.spendChart();
      const axis = chart.axes[1];
      const canvas = chart.ctx.canvas.getBoundingClientRect();
      const ruler = document.createElement('canvas').getContext('2d');
      ruler.font = axis.font[0];
      const ratio = window.devicePixelRatio;
      // For a left axis `_pos` is its right edge (the plot's left); labels end a tick and a gap before it.
      const rightEdge = canvas.left + axis._pos - axis.ticks.size - axis.gap;
      const labels = (axis._values as unknown[]).map((value) => ({ text: String(value), left: rightEdge - ruler.measureText(String(value)).width / ratio, right: rightEdge }));
      const box = (selector: string) => document.querySelector(selector)!.getBoundingClientRect();
      return { labels, chart: box('#spend-chart').left, panel: box('#cost-section').left, yMax: chart.scales.y.max as number };
    });
    expect(measured.labels.length).toBeGreaterThan(1);
    for (const label of measured.labels) {
      expect(label.left, `y label "${label.text}" starts at x=${label.left.toFixed(1)}, the chart at ${measured.chart}`).toBeGreaterThanOrEqual(measured.chart);
      expect(label.left).toBeGreaterThanOrEqual(measured.panel);
    }
    // Short enough to read at a glance (the million-token day sets the scale).
    expect(measured.labels.map((label) => label.text)).toContain('1M');
    // The legend: one entry per loop and per cap, named, none showing uPlot's "--".
    const legend = await page.locator('#spend-chart .u-legend .u-series').evaluateAll((rows) => rows.map((row) => ({ label: row.querySelector('.u-label')?.textContent ?? '', value: row.querySelector('.u-value')?.textContent ?? '' })));
    expect(legend.map((entry) => entry.value)).not.toContain('--');
    const labels = legend.map((entry) => entry.label);
    for (const id of LOOP_IDS) expect(labels).toEqual(expect.arrayContaining([id, `${id} daily cap`]));
    const valueOf = (label: string) => legend.find((entry) => entry.label === label)!.value;
    // Dollars where the journal has a price, tokens alone where it has none (codex reported no cost).
    expect(valueOf(LONG_ID)).toMatch(/^today 180,000 tokens · \$2\.70$/);
    expect(valueOf('ci-sweeper')).toBe('today 40,000 tokens');
    expect(valueOf(`${LONG_ID} daily cap`)).toBe('1,500,000 tokens');
    // The cap line is inside the plotted range.
    expect(measured.yMax).toBeGreaterThanOrEqual(1_500_000);
    // Hovering a day shows that day's spend and dollars instead.
    await page.locator('#spend-chart').scrollIntoViewIfNeeded();
    const over = (await page.locator('#spend-chart .u-over').boundingBox())!;
    await page.mouse.move(over.x + over.width - 2, over.y + over.height / 2);
    await expect.poll(() => page.locator('#spend-chart .u-legend .u-series').nth(1).locator('.u-value').innerText(), WAIT).toMatch(/^[\d,]+ tokens · \$\d+\.\d\d$/);
    expect(await page.locator(`#burn .burn-row[data-loop="${LONG_ID}"]`).innerText()).toContain('$2.70 today');
    await page.locator('#cost-section').screenshot({ path: join(screenshots, `cost-${width}x${height}.png`) });
    await page.close();
  }, 60_000);

  it('History filters on failed', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${url}#token=${token}`);
    await page.locator('body[data-loaded="true"]').waitFor(WAIT);
    const options = await page.locator('#history-filter select[name="outcome"] option').allInnerTexts();
    expect(options).toEqual(expect.arrayContaining(['failed', 'rejected', 'proposed', 'escalated']));
    expect(options).not.toContain('fix-proposed');
    await page.close();
  }, 60_000);
});
