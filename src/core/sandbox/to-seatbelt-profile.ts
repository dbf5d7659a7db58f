/**
 * SandboxProfile → a macOS Seatbelt profile for `sandbox-exec -p`.
 *
 * Deny by default, then allow what ordinary build and test tools need:
 * running processes, reading the filesystem except hidden paths, writing
 * only the writable roots (plus /dev/null and the terminal), and network
 * only on loopback when asked. Seatbelt matches real paths, so the adapter
 * passes paths through `realpath` first (`/tmp` is `/private/tmp`).
 *
 * Golden-tested only: it cannot run on Linux CI.
 */
import { CapabilityUnsupportedError } from '../errors.js';
import { normalizePath, type SandboxProfile } from './sandbox-profile.js';

/** Quotes a path as a Seatbelt string literal. */
function quote(path: string): string {
  return `"${normalizePath(path).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export interface SeatbeltOptions {
  /** The private temp directory to allow writes in when `privateTmp` (macOS has per-user TMPDIRs). */
  tmpDir?: string;
}

/**
 * Builds the profile text.
 *
 * @throws CapabilityUnsupportedError for network "allowlist" (Seatbelt cannot filter by domain) and for
 *   `readableRoots` (not compiled for Seatbelt yet).
 * @example
 * ```ts
 * const text = toSeatbeltProfile(defaultProfile({ worktree: '/Users/me/wt', home: '/Users/me' }));
 * // run: sandbox-exec -p "$text" sh -c 'npm test'
 * ```
 */
export function toSeatbeltProfile(profile: SandboxProfile, options: SeatbeltOptions = {}): string {
  if (profile.network === 'allowlist') {
    throw new CapabilityUnsupportedError('Seatbelt sandbox', 'network allowlist');
  }
  if (profile.readableRoots) {
    throw new CapabilityUnsupportedError('Seatbelt sandbox', 'readable roots (reads confined to listed paths)');
  }
  const lines: string[] = [
    '(version 1)',
    '(deny default)',
    '',
    ';; processes',
    '(allow process-exec)',
    '(allow process-fork)',
    '(allow process-info* (target same-sandbox))',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    '(allow ipc-posix-shm)',
    '(allow ipc-posix-sem)',
    '(allow pseudo-tty)',
    '(allow file-ioctl)',
    '',
    ';; read everything except hidden paths',
    '(allow file-read*)',
  ];
  if (profile.hiddenPaths.length > 0) {
    lines.push('(deny file-read* file-write*');
    for (const path of profile.hiddenPaths) lines.push(`  (subpath ${quote(path)})`);
    lines.push(')');
  }
  // A worktree inside a hidden directory (the state root) is readable again: the later rule wins in Seatbelt.
  const writableInsideHidden = profile.writableRoots.filter((root) =>
    profile.hiddenPaths.some((hidden) => normalizePath(root).startsWith(`${normalizePath(hidden)}/`)),
  );
  if (writableInsideHidden.length > 0) {
    lines.push('(allow file-read*');
    for (const path of writableInsideHidden) lines.push(`  (subpath ${quote(path)})`);
    lines.push(')');
  }
  lines.push('', ';; write only the writable roots', '(allow file-write*');
  for (const path of profile.writableRoots) lines.push(`  (subpath ${quote(path)})`);
  if (profile.privateTmp && options.tmpDir) lines.push(`  (subpath ${quote(options.tmpDir)})`);
  lines.push(
    '  (literal "/dev/null")',
    '  (literal "/dev/zero")',
    '  (literal "/dev/tty")',
    '  (regex #"^/dev/ttys[0-9]+$")',
    ')',
  );
  // Hidden paths inside a writable root stay hidden: the later rule wins in Seatbelt.
  const hiddenInsideWritable = profile.hiddenPaths.filter((hidden) =>
    profile.writableRoots.some((root) => normalizePath(hidden).startsWith(`${normalizePath(root)}/`)),
  );
  if (hiddenInsideWritable.length > 0) {
    lines.push('(deny file-read* file-write*');
    for (const path of hiddenInsideWritable) lines.push(`  (subpath ${quote(path)})`);
    lines.push(')');
  }
  lines.push('', `;; network: ${profile.network}`);
  if (profile.network === 'loopback') {
    lines.push(
      '(allow network-bind (local ip "localhost:*"))',
      '(allow network-inbound (local ip "localhost:*"))',
      '(allow network-outbound (remote ip "localhost:*"))',
      '(allow network-outbound (remote unix-socket))',
    );
  }
  return `${lines.join('\n')}\n`;
}
