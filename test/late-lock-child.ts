/**
 * A child for test/late-lock-signal.test.ts. Like `serve`, it stops gracefully on SIGTERM through a
 * `process.once` listener registered first; then it takes a file lock, and that first lock loads proper-lockfile
 * (and with it signal-exit's signal listeners). It prints READY, and STOPPED when its own listener ran.
 */
import { withFileLock } from '../src/adapters/fs/atomic-file.js';

const [file] = process.argv.slice(2);
process.once('SIGTERM', () => {
  // The graceful stop finishes on a later turn, as `serve`'s server.close() does.
  setImmediate(() => {
    process.stdout.write('STOPPED\n');
    process.exit(0);
  });
});
await withFileLock(file!, async () => undefined);
process.stdout.write('READY\n');
setInterval(() => undefined, 1_000);
