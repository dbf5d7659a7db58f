/**
 * The page's files: a fixed table from URL to file, read once at start.
 * No request path is ever joined onto a directory, so nothing outside this
 * table can be served. The page is plain HTML/CSS/JS shipped in the package
 * (`src/server/public`), and uPlot comes from its own installed package.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';

export interface Asset {
  body: string;
  type: string;
}

/** The package root: where package.json names loop-runtime, from src/server or dist/src/server alike. */
function packageRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    if (existsSync(join(directory, 'package.json')) && existsSync(join(directory, 'src', 'server', 'public'))) return directory;
    directory = dirname(directory);
  }
  throw new Error('loop-runtime serve: cannot find src/server/public in the installed package. Reinstall loop-runtime.');
}

export async function loadAssets(): Promise<Map<string, Asset>> {
  const publicDir = join(packageRoot(), 'src', 'server', 'public');
  const require = createRequire(import.meta.url);
  const uplotDir = join(dirname(require.resolve('uplot')), '..', 'dist');
  const table: Array<[string, string, string]> = [
    ['/', join(publicDir, 'index.html'), 'text/html; charset=utf-8'],
    ['/assets/app.js', join(publicDir, 'app.js'), 'text/javascript; charset=utf-8'],
    ['/assets/render.js', join(publicDir, 'render.js'), 'text/javascript; charset=utf-8'],
    ['/assets/spend-chart.js', join(publicDir, 'spend-chart.js'), 'text/javascript; charset=utf-8'],
    ['/assets/style.css', join(publicDir, 'style.css'), 'text/css; charset=utf-8'],
    ['/assets/uplot.js', join(uplotDir, 'uPlot.iife.min.js'), 'text/javascript; charset=utf-8'],
    ['/assets/uplot.css', join(uplotDir, 'uPlot.min.css'), 'text/css; charset=utf-8'],
  ];
  const assets = new Map<string, Asset>();
  for (const [url, file, type] of table) assets.set(url, { body: await readFile(file, 'utf8'), type });
  return assets;
}
