import { describe, expect, it } from 'vitest';
import { CapabilityUnsupportedError } from '../errors.js';
import { toBwrapArgs } from './to-bwrap-args.js';
import { toSeatbeltProfile } from './to-seatbelt-profile.js';
import { denylistVerificationProfile, isSafeReadableRoot, verificationProfile } from './verification-profile.js';

const worktree = '/home/me/.local/state/loop-runtime/app-1a2b/worktrees/a1';
const stateRoot = '/home/me/.local/state/loop-runtime';
const readable = ['/usr', '/bin', '/etc/ssl', '/home/me/.cargo', '/home/me/.rustup', '/opt/go', '/home/me/src/app/.venv'];

describe('verificationProfile', () => {
  const profile = verificationProfile({ worktree, home: '/home/me', hiddenExtra: [stateRoot, '/home/me/src/app/.loop-worktrees'], readable });

  it('reads only the listed roots; the worktree is the one writable root', () => {
    expect(profile.writableRoots).toEqual([worktree]);
    expect(profile.readableRoots).toEqual(readable);
    expect(profile.network).toBe('none');
    expect(profile.privateTmp).toBe(true);
  });

  it("masks the worktree's .git and credentials inside a readable root; drops hidden paths nothing shows", () => {
    expect(profile.hiddenPaths).toContain(`${worktree}/.git`);
    expect(profile.hiddenPaths).toContain('/home/me/.cargo/credentials.toml');
    // ~/.ssh and the state root are not visible at all: no mount point is made for them.
    expect(profile.hiddenPaths).not.toContain('/home/me/.ssh');
    expect(profile.hiddenPaths).not.toContain(stateRoot);
  });

  it('passes the toolchain variables through, and still no secret-named one', () => {
    expect(profile.envAllowlist).toEqual(expect.arrayContaining(['PATH', 'HOME', 'CARGO_HOME', 'RUSTUP_HOME', 'GOROOT', 'GOMODCACHE', 'PYENV_ROOT']));
  });

  it('compiles to bwrap from an empty root: no host path but the listed ones (golden)', async () => {
    const args = toBwrapArgs(profile, { argv: ['sh', '-c', 'npm test'], cwd: worktree, env: { PATH: '/usr/bin:/bin' } }, {
      isRoot: true,
      pathKinds: { [`${worktree}/.git`]: 'file', '/home/me/.cargo/credentials.toml': 'file', '/home/me/.cargo/credentials': 'missing' },
      seccompFd: 3,
    });
    expect(args).not.toContain('/');
    expect(args.join('\n')).not.toMatch(/\/home\/me\/src\/app(\n|$)/);
    await expect(`${args.join('\n')}\n`).toMatchFileSnapshot('./__golden__/bwrap-verification.txt');
  });

  it('is refused by the Seatbelt builder rather than silently widened', () => {
    expect(() => toSeatbeltProfile(profile)).toThrow(CapabilityUnsupportedError);
  });
});

describe('isSafeReadableRoot', () => {
  const protectedRoots = ['/home/me/src/app', stateRoot];
  it.each([
    ['/usr/local/go', true],
    ['/home/me/.cargo', true],
    ['/home/me/src/app/node_modules/.bin', false],
    ['/home/me/src', false],
    ['/home/me', false],
    ['/home', false],
    ['/', false],
    ['/home/me/.local/state', false],
  ])('%s → %s', (path, safe) => {
    expect(isSafeReadableRoot(path, '/home/me', protectedRoots)).toBe(safe);
  });
});

describe('denylistVerificationProfile (Seatbelt, which cannot compile an allowlist)', () => {
  it("hides the checkout's secret files, git config and hooks and the worktree's .git (golden)", async () => {
    const profile = denylistVerificationProfile({
      worktree: '/Users/me/Library/Application Support/loop-runtime/app-1a2b/worktrees/a1',
      home: '/Users/me',
      hiddenExtra: ['/Users/me/Library/Application Support/loop-runtime'],
      checkout: '/Users/me/src/app',
      checkoutSecrets: ['/Users/me/src/app/.env', '/Users/me/src/app/config/secrets'],
    });
    expect(profile.readableRoots).toBeUndefined();
    await expect(toSeatbeltProfile(profile, { tmpDir: '/private/var/folders/xy/T/loop-a1' })).toMatchFileSnapshot('./__golden__/seatbelt-verification.sb');
  });
});
