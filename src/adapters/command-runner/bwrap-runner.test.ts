import { describe, expect, it } from 'vitest';
import { LoopRuntimeError } from '../../core/errors.js';
import { createSandboxedRunner, detectSandbox } from './bwrap-runner.js';

const none = async () => ({ kind: 'none' as const, reason: 'bubblewrap (bwrap) is not installed' });

describe('createSandboxedRunner without a sandbox', () => {
  it('refuses at L3 even with the opt-out', async () => {
    const lines: string[] = [];
    const attempt = createSandboxedRunner({ level: 'L3', allowUnsandboxed: true, log: (line) => lines.push(line), detect: none });
    await expect(attempt).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' });
    await expect(attempt).rejects.toThrow(/L3.*To fix: install bubblewrap/s);
    expect(lines).toEqual([]);
  });

  it('refuses below L3 without the opt-out', async () => {
    const attempt = createSandboxedRunner({ level: 'L2', allowUnsandboxed: false, log: () => {}, detect: none });
    await expect(attempt).rejects.toBeInstanceOf(LoopRuntimeError);
    await expect(attempt).rejects.toThrow(/--allow-unsandboxed/);
  });

  it('runs unsandboxed below L3 with the opt-out, and logs it', async () => {
    const lines: string[] = [];
    const runner = await createSandboxedRunner({ level: 'L1', allowUnsandboxed: true, log: (line) => lines.push(line), detect: none });
    expect(runner.isolation).toBe('none');
    expect(lines).toEqual([
      'sandbox: none available (bubblewrap (bwrap) is not installed); running commands WITHOUT isolation at L1 because --allow-unsandboxed was given',
    ]);
  });
});

describe('detectSandbox', () => {
  it('reports a missing bwrap as none, with the reason', async () => {
    expect(await detectSandbox({ platform: 'linux', env: { PATH: '/nonexistent' } })).toEqual({ kind: 'none', reason: 'bubblewrap (bwrap) is not installed' });
  });

  it('reports an unsupported platform', async () => {
    expect(await detectSandbox({ platform: 'win32' })).toEqual({ kind: 'none', reason: 'no supported sandbox on win32' });
  });

  it('reports a bwrap that cannot start as none', async () => {
    const result = await detectSandbox({ platform: 'linux', bwrapPath: '/bin/false' });
    expect(result.kind).toBe('none');
    expect(result.reason).toMatch(/cannot create a sandbox/);
  });
});
