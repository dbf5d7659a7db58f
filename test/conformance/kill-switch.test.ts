import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileKillSwitch } from '../../src/adapters/kill-switch/kill-switch.js';
import { MemoryKillSwitch, MemoryKillSwitchStore } from '../../src/adapters/kill-switch/memory-kill-switch.js';
import { describeKillSwitchConformance } from '../../src/testing/conformance/index.js';

describeKillSwitchConformance('MemoryKillSwitch', async () => {
  const killSwitch = new MemoryKillSwitch();
  return {
    killSwitch,
    pause: async () => killSwitch.pause('test'),
    resume: async () => killSwitch.resume(),
    // One process: the same instance is the only store.
    halts: { reopen: () => killSwitch, clearHalt: async () => void killSwitch.clearHalt() },
  };
});

describeKillSwitchConformance('FileKillSwitch (halts in the run log)', async () => {
  const root = await mkdtemp(join(tmpdir(), 'kill-switch-conformance-'));
  const make = () => new FileKillSwitch({ root, env: {}, patternId: 'daily-triage', runLog: 'loop-run-log.md' });
  return {
    killSwitch: make(),
    pause: () => writeFile(join(root, 'loop-pause-all'), ''),
    resume: () => rm(join(root, 'loop-pause-all')),
    cleanup: () => rm(root, { recursive: true, force: true }),
    halts: { reopen: make, clearHalt: async () => void (await make().clearHalt({ by: 'conformance', at: 1_795_500_000_000 })) },
  };
});

describeKillSwitchConformance('FileKillSwitch (root file loop-pause-all)', async () => {
  const root = await mkdtemp(join(tmpdir(), 'kill-switch-conformance-'));
  return {
    killSwitch: new FileKillSwitch({ root, stateFile: 'STATE.md', env: {} }),
    pause: () => writeFile(join(root, 'loop-pause-all'), ''),
    resume: () => rm(join(root, 'loop-pause-all')),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});

describeKillSwitchConformance('FileKillSwitch (state file line)', async () => {
  const root = await mkdtemp(join(tmpdir(), 'kill-switch-conformance-'));
  const state = join(root, 'STATE.md');
  await writeFile(state, '# Loop State\nloop-pause-all: false\n');
  return {
    killSwitch: new FileKillSwitch({ root, stateFile: 'STATE.md', env: {} }),
    pause: () => writeFile(state, '# Loop State\nloop-pause-all: true\n'),
    resume: () => writeFile(state, '# Loop State\nloop-pause-all: false\n'),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});

describeKillSwitchConformance('MemoryKillSwitchStore (a project store twin)', async () => {
  const store = new MemoryKillSwitchStore();
  const killSwitch = store.for('daily-triage');
  return {
    killSwitch,
    pause: () => killSwitch.pause({ by: 'test' }),
    resume: () => killSwitch.resume({}),
    halts: { reopen: () => store.for('daily-triage'), clearHalt: async () => void (await store.for('daily-triage').clearHalt({ by: 'conformance', at: 1_795_500_000_000 })) },
    store: { open: (loop) => store.for(loop) },
  };
});

describeKillSwitchConformance('FileKillSwitch (a project store: .loop-runtime/paused, run-log halts)', async () => {
  const root = await mkdtemp(join(tmpdir(), 'kill-switch-conformance-'));
  const make = (loop: string | null) => new FileKillSwitch({ root, env: {}, ...(loop ? { patternId: loop, runLog: 'loop-run-log.md' } : {}) });
  return {
    killSwitch: make('daily-triage'),
    pause: () => make(null).pause({}),
    resume: () => make(null).resume({}),
    cleanup: () => rm(root, { recursive: true, force: true }),
    halts: { reopen: () => make('daily-triage'), clearHalt: async () => void (await make('daily-triage').clearHalt({ by: 'conformance', at: 1_795_500_000_000 })) },
    store: { open: make },
  };
});
