/**
 * A child process for crash tests: does one thing, says so on stdout, then
 * hangs until the parent kills it with SIGKILL at exactly that point.
 *
 *   write <file>   an atomic write, stopped after its temporary file exists
 *   lock <file>    holds the inter-process lock on <file>
 */
import writeFileAtomic from 'write-file-atomic';
import { withFileLock } from '../src/adapters/fs/atomic-file.js';

const [mode, file] = process.argv.slice(2);
const hang = () => new Promise<never>(() => setInterval(() => undefined, 1_000));

if (mode === 'write' && file) {
  await writeFileAtomic(file, 'a new version that never lands\n', {
    tmpfileCreated: async (temporary: string) => {
      process.stdout.write(`TMP ${temporary}\n`);
      await hang();
    },
  });
} else if (mode === 'lock' && file) {
  await withFileLock(file, async () => {
    process.stdout.write(`LOCKED ${process.pid}\n`);
    await hang();
  });
} else {
  process.stderr.write(`usage: crash-child write|lock <file>\n`);
  process.exit(2);
}
