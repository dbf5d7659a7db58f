import { describe, expect, it } from 'vitest';
import { CapabilityUnsupportedError } from '../errors.js';
import { SandboxProfileSchema, type SandboxProfile } from './sandbox-profile.js';
import { toBwrapArgs } from './to-bwrap-args.js';
import { toSeatbeltProfile } from './to-seatbelt-profile.js';

const confined: SandboxProfile = {
  writableRoots: ['/repo/.loop-worktrees/a1', '/home/agent'],
  readableRoots: ['/usr', '/etc/ssl', '/repo/.loop-worktrees/a1/.git'],
  hiddenPaths: ['/repo/.loop-worktrees/a1/.env'],
  network: 'loopback',
  allowedDomains: [],
  envAllowlist: ['PATH'],
  privateTmp: true,
  timeoutMs: 60_000,
  outputLimitBytes: 65_536,
};
const command = { argv: ['claude', '-p'], cwd: '/repo/.loop-worktrees/a1', env: { PATH: '/usr/bin' } };

describe('readableRoots', () => {
  it('starts from an empty root and binds only the listed paths, deeper mounts covering shallower ones', () => {
    const args = toBwrapArgs(confined, command, { isRoot: false, pathKinds: { '/repo/.loop-worktrees/a1/.env': 'file' } });
    expect(args).not.toContain('/');
    expect(args.slice(0, 7)).toEqual(['--die-with-parent', '--new-session', '--unshare-all', '--dev', '/dev', '--proc', '/proc']);
    const mounts = args.slice(7, args.indexOf('--chdir'));
    expect(mounts).toEqual([
      '--tmpfs', '/tmp',
      '--ro-bind', '/usr', '/usr',
      '--ro-bind', '/etc/ssl', '/etc/ssl',
      '--bind', '/home/agent', '/home/agent',
      '--bind', '/repo/.loop-worktrees/a1', '/repo/.loop-worktrees/a1',
      // the worktree's .git file stays read-only inside the writable worktree; the secret file is /dev/null
      '--ro-bind', '/repo/.loop-worktrees/a1/.git', '/repo/.loop-worktrees/a1/.git',
      '--ro-bind', '/dev/null', '/repo/.loop-worktrees/a1/.env',
    ]);
  });

  it('keeps a path that is both readable and writable writable', () => {
    const args = toBwrapArgs({ ...confined, readableRoots: ['/home/agent'] }, command, { isRoot: false });
    const bindings = args.filter((arg) => arg === '--bind' || arg === '--ro-bind');
    expect(bindings.lastIndexOf('--bind')).toBeGreaterThan(bindings.indexOf('--ro-bind'));
  });

  it('without readableRoots the whole host stays read-only visible (the verifier\'s profile is unchanged)', () => {
    const { readableRoots: _omitted, ...open } = confined;
    expect(toBwrapArgs(SandboxProfileSchema.parse(open), command, { isRoot: false }).slice(3, 6)).toEqual(['--ro-bind', '/', '/']);
  });

  it('is refused by the Seatbelt builder rather than silently widened', () => {
    expect(() => toSeatbeltProfile(confined)).toThrow(CapabilityUnsupportedError);
  });

  it('rejects relative readable roots', () => {
    expect(SandboxProfileSchema.safeParse({ ...confined, readableRoots: ['usr'] }).success).toBe(false);
  });
});
