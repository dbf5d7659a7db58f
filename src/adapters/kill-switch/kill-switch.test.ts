import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileKillSwitch } from './kill-switch.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'kill-switch-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('FileKillSwitch', () => {
  it('is not paused with no switch set', async () => {
    await writeFile(join(root, 'STATE.md'), '# Loop State\nloop-pause-all: false\n');
    expect(await new FileKillSwitch({ root, stateFile: 'STATE.md', env: {} }).check()).toEqual({ paused: false });
  });

  it('honours a root file named loop-pause-all', async () => {
    const kill = new FileKillSwitch({ root, stateFile: 'STATE.md', env: {} });
    await writeFile(join(root, 'loop-pause-all'), '');
    expect(await kill.check()).toEqual({ paused: true, source: 'file loop-pause-all' });
    await rm(join(root, 'loop-pause-all'));
    expect((await kill.check()).paused).toBe(false);
  });

  it('honours the line in the state file', async () => {
    await writeFile(join(root, 'ci-sweeper-state.md'), '# CI\n\n- `loop-pause-all: true`\n');
    const status = await new FileKillSwitch({ root, stateFile: 'ci-sweeper-state.md', env: {} }).check();
    expect(status).toEqual({ paused: true, source: 'ci-sweeper-state.md line loop-pause-all: true' });
  });

  it.each(['1', 'true', 'YES'])('honours LOOP_RUNTIME_PAUSE=%s', async (value) => {
    const status = await new FileKillSwitch({ root, env: { LOOP_RUNTIME_PAUSE: value } }).check();
    expect(status).toEqual({ paused: true, source: 'env LOOP_RUNTIME_PAUSE' });
  });

  it.each(['0', 'false', ''])('ignores LOOP_RUNTIME_PAUSE=%j', async (value) => {
    expect((await new FileKillSwitch({ root, env: { LOOP_RUNTIME_PAUSE: value } }).check()).paused).toBe(false);
  });

  // `status` hands the switch its snapshot of the files, so a report reads the state file and run log once.
  it('reads the state file and the run log through readText when given one', async () => {
    await writeFile(join(root, 'STATE.md'), '# Loop State\nloop-pause-all: false\n');
    const asked: string[] = [];
    const readText = async (path: string) => {
      asked.push(path);
      return path.endsWith('STATE.md') ? '# Loop State\nloop-pause-all: true\n' : null;
    };
    const kill = new FileKillSwitch({ root, stateFile: 'STATE.md', env: {}, patternId: 'ci-sweeper', runLog: 'loop-run-log.md', readText });
    expect(await kill.check()).toEqual({ paused: true, source: 'STATE.md line loop-pause-all: true' });
    expect(asked.sort()).toEqual([join(root, 'STATE.md'), join(root, 'loop-run-log.md')].sort());
  });
});
