/** This package's version, for `--version` and the console's `/api/health`. */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function packageVersion(): string {
  if (cached) return cached;
  // The bundle (dist/lib/cli.js), tsc's output (dist/src/cli/) and the source (src/cli/) sit at different depths below package.json.
  for (const relative of ['../../../package.json', '../../package.json']) {
    try {
      const parsed = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (parsed.name === 'loop-runtime' && parsed.version) return (cached = parsed.version);
    } catch {
      // try the next depth
    }
  }
  return '0.0.0';
}
