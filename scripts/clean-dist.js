#!/usr/bin/env node
/**
 * `npm run build`, before tsc: removes earlier output. tsc never deletes what it emitted for a source file that has
 * since moved or gone, and a stale module left in dist/ keeps an import by its old path working on this machine
 * while it fails on a clean checkout (the bench imported a moved module that way for weeks). `dist/cli` is the CLI
 * bundle earlier builds made (now dist/lib holds the one bundle): a leftover would be a second copy.
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const directory of ['src', 'backends', 'lib', 'cli']) rmSync(join(root, 'dist', directory), { recursive: true, force: true });
