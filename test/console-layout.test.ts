/**
 * The console at the sizes operators use (1280×800, 1920×1080) in headless Chromium against `loop-runtime serve`
 * (in-process, stopped through its stop signal): the Pause column is inside the viewport, the header agrees with
 * `status` once a single loop is paused, a loop with nothing running is not "running", `/api/health` reports the
 * package's version, and History filters on `failed`. Screenshots go to a temporary directory for a human to look at.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { cli, packageRoot, scaffoldRepository } from './server-fixtures.js';

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
    repo = await scaffoldRepository(['escalate']);
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
    await page.screenshot({ path: join(screenshots, `console-${width}x${height}.png`), fullPage: true });

    // One loop paused from the CLI: the header says so, as `status` does.
    expect((await cli(repo, ['pause', 'daily-triage', '--reason', 'layout test', '--by', 'tester'])).code).toBe(0);
    const status = await cli(repo, ['status']);
    expect(status.stdout).toContain('paused by');
    await page.reload();
    await page.locator('body[data-loaded="true"]').waitFor(WAIT);
    await expect.poll(() => page.locator('#pause-state').innerText(), WAIT).toBe('1 of 1 loop(s) paused: daily-triage');
    expect(await row.locator('.pause-sources').innerText()).toMatch(/^paused by /);
    // The longer cell of a paused loop does not push its Resume button out of view either.
    const resume = (await row.locator('button[data-action]').boundingBox())!;
    expect(resume.x + resume.width, `Resume button at x=${resume.x} in a ${width} px viewport`).toBeLessThanOrEqual(width);
    await page.screenshot({ path: join(screenshots, `console-${width}x${height}-paused.png`), fullPage: true });
    expect((await cli(repo, ['resume', 'daily-triage', '--by', 'tester'])).code).toBe(0);
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
