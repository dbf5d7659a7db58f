/**
 * Every test file gets its own XDG_STATE_HOME, so the worktrees a test makes
 * (by default in the user's state directory, outside the checkout) land in a
 * temporary directory that is removed afterwards, never in the real home.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const stateHome = mkdtempSync(join(tmpdir(), 'loop-state-home-'));
process.env['XDG_STATE_HOME'] = stateHome;
afterAll(() => rmSync(stateHome, { recursive: true, force: true }));
