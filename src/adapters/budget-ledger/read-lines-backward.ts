import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';

/** Bytes read by backward scans, for benchmarks and tests. */
export interface LedgerReadStats {
  bytesRead: number;
}

/**
 * Visits the complete lines of a file from last to first, reading chunks from
 * the end, until `visit` returns "stop". A last line without a terminating
 * newline (a torn or in-progress append) is skipped. A missing file has no
 * lines. `visit` also gets the line's byte offset in the file.
 *
 * The reads are synchronous behind the async signature: a scan stops at the
 * day asked for, so it reads a chunk or two, and each asynchronous call cost
 * a thread-pool round trip larger than the read (`status` made sixteen of
 * them for two ledgers over two files).
 */
export async function readLinesBackward(
  path: string,
  visit: (line: string, offset: number) => 'continue' | 'stop',
  stats: LedgerReadStats = { bytesRead: 0 },
  chunkSize = 64 * 1024,
): Promise<void> {
  // Often the spend journal does not exist yet: a stat answering "no entry" is cheaper than the exception a failed
  // open builds; one that cannot reach the file still throws (an unreadable ledger is never an empty one).
  if (!statSync(path, { throwIfNoEntry: false })) return;
  let descriptor: number;
  try {
    descriptor = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    let position = fstatSync(descriptor).size;
    // Bytes of the line being assembled; everything after the last newline seen so far.
    let carry: Buffer = Buffer.alloc(0);
    let sawTerminator = false;
    while (position > 0) {
      const length = Math.min(chunkSize, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      readSync(descriptor, chunk, 0, length, position);
      stats.bytesRead += length;
      const buffer = Buffer.concat([chunk, carry]);
      let end = buffer.length;
      for (let index = buffer.length - 1 - carry.length; index >= 0; index -= 1) {
        if (buffer[index] !== 0x0a) continue;
        if (sawTerminator) {
          const line = buffer.subarray(index + 1, end).toString('utf8').replace(/\r$/, '');
          if (visit(line, position + index + 1) === 'stop') return;
        }
        sawTerminator = true;
        end = index;
      }
      carry = buffer.subarray(0, end);
    }
    if (sawTerminator && carry.length > 0) visit(carry.toString('utf8').replace(/\r$/, ''), 0);
  } finally {
    closeSync(descriptor);
  }
}
