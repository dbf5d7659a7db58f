/**
 * A `loop-runtime worker` process as the CLI wires it (`startFleetService`),
 * for the fleet tests that need to stop it at an exact point, bundled by esbuild (test/bundled-child.ts):
 *   fleet-service-child.ts <url> <repo> <executorId> <run|die-after-proposal> <clock-start>
 * Serves <repo>'s loops from the fleet store at <url>; the clock starts at
 * <clock-start> and moves 1 s per read. Prints `ready` once serving, then the
 * worker's report lines. With die-after-proposal it SIGKILLs itself the
 * moment the worker reports a delivered change recorded for outcome tracking:
 * after the tick's whole surroundings ran, before its workflow is marked done.
 */
import { startFleetService } from '../src/fleet/fleet-service.js';
import { FixedClock } from '../src/testing/fixed-clock.js';

const [url, repo, executorId, mode, clockStart] = process.argv.slice(2);
if (!url || !repo || !executorId || !clockStart || (mode !== 'run' && mode !== 'die-after-proposal')) {
  process.stderr.write('usage: fleet-service-child.ts <url> <repo> <executorId> <run|die-after-proposal> <clock-start>\n');
  process.exit(2);
}

const service = await startFleetService({
  repositories: [repo],
  databaseUrl: url,
  executorId,
  env: process.env,
  clock: new FixedClock(clockStart, 1000),
  pollMs: 200,
  recoveryIntervalMs: 200,
  report: (line) => {
    process.stdout.write(`${line}\n`);
    if (mode === 'die-after-proposal' && line.includes(': outcomes: following')) process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => void service.stop().then(() => process.exit(0)));
