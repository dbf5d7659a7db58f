/**
 * Follows `.loop-runtime/events.jsonl` as other processes append to it:
 * `fs.watch` on the directory wakes it at once, a slow stat poll covers
 * platforms where watching misses an event. Reads only the new bytes; a file
 * that shrank or was rotated is read from its start. Starts at the current
 * end: what happened before is history, not live.
 */
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EVENTS_FILE, parseTickEvents, type TickEventLine } from './tick-events.js';

export interface EventTail {
  close(): void;
}

export interface TailOptions {
  /** Fallback poll interval (default 1000 ms); the timer never keeps the process alive. */
  pollMs?: number;
}

export async function tailTickEvents(root: string, listener: (line: TickEventLine) => void, options: TailOptions = {}): Promise<EventTail> {
  const path = join(root, EVENTS_FILE);
  await mkdir(join(root, '.loop-runtime'), { recursive: true });
  let offset = await stat(path).then((info) => info.size, () => 0);
  let inode = await stat(path).then((info) => info.ino, () => 0);
  let partial = '';
  let reading = false;
  let again = false;
  let closed = false;

  const readNew = async (): Promise<void> => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const info = await stat(path).catch(() => null);
        if (!info) continue;
        if (info.ino !== inode || info.size < offset) {
          // Rotated: finish the old generation (now events.jsonl.1) where we left it, then read the new file
          // from its start. Truncated in place: read from the start. (Two rotations between reads lose the middle.)
          const previous = await stat(`${path}.1`).catch(() => null);
          if (previous && previous.ino === inode && previous.size > offset) await readRange(`${path}.1`, offset, previous.size);
          inode = info.ino;
          offset = 0;
          partial = '';
        }
        if (info.size === offset) continue;
        offset = await readRange(path, offset, info.size);
      } while (again && !closed);
    } finally {
      reading = false;
    }
  };
  /** Emits the whole lines in [from, to) (plus what was left over); returns the new offset. */
  const readRange = async (file: string, from: number, to: number): Promise<number> => {
    const handle = await open(file, 'r');
    try {
      const buffer = Buffer.alloc(to - from);
      const { bytesRead } = await handle.read(buffer, 0, to - from, from);
      const text = partial + buffer.subarray(0, bytesRead).toString('utf8');
      const end = text.lastIndexOf('\n');
      partial = text.slice(end + 1);
      if (end >= 0 && !closed) for (const line of parseTickEvents(text.slice(0, end + 1))) listener(line);
      return from + bytesRead;
    } finally {
      await handle.close();
    }
  };
  const wake = () => {
    if (!closed) readNew().catch(() => {});
  };
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(join(root, '.loop-runtime'), { persistent: false }, (_event, name) => {
      if (!name || String(name).startsWith('events.jsonl')) wake();
    });
    watcher.on('error', () => {});
  } catch {
    watcher = null;
  }
  const timer = setInterval(wake, options.pollMs ?? 1000);
  timer.unref();
  return {
    close() {
      closed = true;
      clearInterval(timer);
      watcher?.close();
    },
  };
}
