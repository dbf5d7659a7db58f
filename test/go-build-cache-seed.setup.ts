/**
 * vitest globalSetup of the integration project: one directory per suite run for the warm Go build cache that
 * test/go-build-cache-seed.ts fills on first use and copies for each file. Only the directory is made here (the
 * fill is lazy, so a run without Go tests pays nothing); it goes when the run ends.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The suite run's directory for the warm Go build cache (test/go-build-cache-seed.ts). */
    goBuildCacheSeed: string;
  }
}

let seed: string | null = null;

export async function setup(project: TestProject): Promise<void> {
  seed = await mkdtemp(join(tmpdir(), 'loop-runtime-go-seed-'));
  project.provide('goBuildCacheSeed', seed);
}

export async function teardown(): Promise<void> {
  if (seed) await rm(seed, { recursive: true, force: true });
}
