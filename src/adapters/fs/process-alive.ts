/**
 * Whether a pid on this host is alive: signal 0 checks without sending
 * anything; EPERM means the process exists but belongs to another user.
 *
 * @example
 * ```ts
 * processIsAlive(process.pid); // → true
 * ```
 */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
