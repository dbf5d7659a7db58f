import { describe, expect, it } from 'vitest';
import { CapabilityUnsupportedError } from '../errors.js';
import { defaultProfile, SandboxProfileSchema, type SandboxProfile } from './sandbox-profile.js';
import { denyInetSeccompProgram } from './seccomp-deny-inet.js';
import { toBwrapArgs } from './to-bwrap-args.js';
import { toSeatbeltProfile } from './to-seatbelt-profile.js';

const base: SandboxProfile = {
  writableRoots: ['/work/repo/.loop/worktrees/a1'],
  hiddenPaths: ['/home/me/.ssh', '/home/me/.netrc', '/home/me/.aws', '/work/repo/.loop/worktrees'],
  network: 'none',
  allowedDomains: [],
  envAllowlist: ['PATH'],
  privateTmp: true,
  timeoutMs: 60_000,
  outputLimitBytes: 65_536,
};
const command = { argv: ['sh', '-c', 'npm test'], cwd: '/work/repo/.loop/worktrees/a1', env: { PATH: '/usr/bin:/bin', HOME: '/home/me' } };

describe('toBwrapArgs (golden)', () => {
  it('builds the verifier profile for root with seccomp', () => {
    const args = toBwrapArgs(base, command, {
      isRoot: true,
      pathKinds: { '/home/me/.ssh': 'directory', '/home/me/.netrc': 'file', '/home/me/.aws': 'missing' },
      seccompFd: 3,
    });
    expect(args).toEqual([
      '--die-with-parent', '--new-session', '--unshare-all',
      '--cap-drop', 'ALL',
      '--ro-bind', '/', '/',
      '--dev', '/dev',
      '--proc', '/proc',
      '--tmpfs', '/tmp',
      '--ro-bind', '/dev/null', '/home/me/.netrc',
      '--tmpfs', '/home/me/.ssh',
      // the other worktrees are hidden, then this attempt's worktree is bound on top (deeper path)
      '--tmpfs', '/work/repo/.loop/worktrees',
      '--bind', '/work/repo/.loop/worktrees/a1', '/work/repo/.loop/worktrees/a1',
      // hidden directories become read-only once every mount point exists
      '--remount-ro', '/home/me/.ssh',
      '--remount-ro', '/work/repo/.loop/worktrees',
      '--chdir', '/work/repo/.loop/worktrees/a1',
      '--clearenv',
      '--setenv', 'HOME', '/home/me',
      '--setenv', 'PATH', '/usr/bin:/bin',
      '--seccomp', '3',
      '--', 'sh', '-c', 'npm test',
    ]);
  });

  it('hides credentials inside a writable root (hidden mounts after the bind)', () => {
    const profile = { ...base, writableRoots: ['/home/me'], hiddenPaths: ['/home/me/.ssh'], privateTmp: false, network: 'loopback' as const };
    const args = toBwrapArgs(profile, { ...command, cwd: '/home/me', env: {} }, { isRoot: false, seccompFd: 3 });
    expect(args).toEqual([
      '--die-with-parent', '--new-session', '--unshare-all',
      '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc',
      '--bind', '/home/me', '/home/me',
      '--tmpfs', '/home/me/.ssh', '--remount-ro', '/home/me/.ssh',
      '--chdir', '/home/me', '--clearenv',
      '--', 'sh', '-c', 'npm test',
    ]);
    expect(args).not.toContain('--cap-drop');
    expect(args).not.toContain('--seccomp');
    expect(args).not.toContain('--share-net');
  });

  it("mounts the checkout's node_modules read-only inside the writable worktree, after its bind", () => {
    const profile = { ...base, writableRoots: ['/repo/.loop-worktrees/a1'], hiddenPaths: [], privateTmp: false, network: 'loopback' as const };
    const readOnlyBinds = [{ source: '/repo/node_modules', target: '/repo/.loop-worktrees/a1/node_modules' }];
    const args = toBwrapArgs({ ...profile, readOnlyBinds }, { ...command, cwd: '/repo/.loop-worktrees/a1', env: {} });
    expect(args.join(' ')).toContain('--bind /repo/.loop-worktrees/a1 /repo/.loop-worktrees/a1 --ro-bind /repo/node_modules /repo/.loop-worktrees/a1/node_modules --chdir');
    expect(SandboxProfileSchema.safeParse({ ...profile, readOnlyBinds: [{ source: 'node_modules', target: '/w/node_modules' }] }).success).toBe(false);
  });

  it('refuses a domain allowlist, which bwrap cannot enforce', () => {
    expect(() => toBwrapArgs({ ...base, network: 'allowlist', allowedDomains: ['example.org'] }, command)).toThrow(CapabilityUnsupportedError);
  });

  it('only uses options bubblewrap 0.8 has', () => {
    const known = new Set(['--die-with-parent', '--new-session', '--unshare-all', '--cap-drop', '--ro-bind', '--dev', '--proc', '--tmpfs', '--remount-ro', '--bind', '--chdir', '--clearenv', '--setenv', '--seccomp', '--']);
    const args = toBwrapArgs(defaultProfile({ worktree: '/w', home: '/root' }), { argv: ['true'], cwd: '/w', env: { A: '--not-an-option' } }, { isRoot: true, seccompFd: 3 });
    const options = args.filter((arg, index) => arg.startsWith('--') && args[index - 1] !== '--setenv' && args[index - 2] !== '--setenv');
    for (const option of options) expect(known).toContain(option);
  });
});

describe('defaultProfile', () => {
  it('hides credentials and other worktrees, allows no network and validates', () => {
    const profile = defaultProfile({ worktree: '/repo/wt/a1/', home: '/home/me', hiddenExtra: ['/repo/wt/a2'] });
    expect(profile.writableRoots).toEqual(['/repo/wt/a1']);
    expect(profile.network).toBe('none');
    expect(profile.hiddenPaths).toEqual(expect.arrayContaining(['/home/me/.ssh', '/home/me/.aws', '/home/me/.config/gh', '/home/me/.gnupg', '/home/me/.netrc', '/home/me/.docker', '/repo/wt/a2']));
    expect(SandboxProfileSchema.parse(profile)).toEqual(profile);
  });

  it('rejects relative and dot-dot paths', () => {
    expect(() => defaultProfile({ worktree: 'repo', home: '/home/me' })).toThrow(/absolute/);
    expect(() => defaultProfile({ worktree: '/repo/../etc', home: '/home/me' })).toThrow(/\.\./);
  });
});

describe('toSeatbeltProfile (golden)', () => {
  it('matches the golden file for network none', async () => {
    const profile = defaultProfile({ worktree: '/Users/me/repo/.loop/worktrees/a1', home: '/Users/me', hiddenExtra: ['/Users/me/repo/.loop/worktrees/a2'] });
    await expect(toSeatbeltProfile(profile, { tmpDir: '/private/var/folders/xy/T/loop-a1' })).toMatchFileSnapshot('./__golden__/seatbelt-none.sb');
  });

  it('matches the golden file for loopback with a hidden path inside the writable root', async () => {
    const profile: SandboxProfile = { ...base, writableRoots: ['/Users/me'], hiddenPaths: ['/Users/me/.ssh'], network: 'loopback', privateTmp: false };
    await expect(toSeatbeltProfile(profile)).toMatchFileSnapshot('./__golden__/seatbelt-loopback.sb');
  });

  it('escapes quotes in paths', () => {
    const text = toSeatbeltProfile({ ...base, writableRoots: ['/Users/me/we"ird'], hiddenPaths: [] });
    expect(text).toContain('(subpath "/Users/me/we\\"ird")');
  });
});

describe('denyInetSeccompProgram', () => {
  it('is 12 sock_filter instructions and differs per architecture', () => {
    const x64 = denyInetSeccompProgram('x64');
    expect(x64.byteLength).toBe(96);
    expect(Buffer.from(x64).equals(Buffer.from(denyInetSeccompProgram('arm64')))).toBe(false);
    // last instruction: RET ERRNO|EACCES
    expect(Buffer.from(x64.subarray(88)).toString('hex')).toBe('06000000' + '0d000500');
  });
});
