// `node -r scripts/cpu-at-exit.cjs …` appends the process's CPU time (user + system, µs, every thread) to
// $LOOP_RUNTIME_CPU_LOG when it exits: scripts/bench-cold.js measures cold start in CPU time, which a loaded machine
// inflates far less than wall time. CommonJS on purpose: `-r` loads it on the CommonJS loader every process starts
// anyway, so `node -e 0` and the CLI pay the same small price for it.
'use strict';
const log = process.env.LOOP_RUNTIME_CPU_LOG;
if (log) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    require('node:fs').appendFileSync(log, `${user + system}\n`);
  });
}
