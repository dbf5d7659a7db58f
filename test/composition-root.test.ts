/**
 * One composition root (STYLE.md, DESIGN.md "Entry points share one wiring path"): only src/composition (and adapters
 * composing their own internals, backends theirs, the test doubles) construct adapter classes; use cases, commands,
 * the console and the fleet get them from the root; nor do they use an adapter factory (a function or value exported
 * from src/adapters/ whose declared type is a port or an adapter class: rule in composition-rules.ts's header). And
 * production code never imports src/testing. Checked from the
 * parsed sources over the real tree; hostile snippets (never written to the tree) show each rule bites, each paired
 * with its allowed twin.
 */
import { describe, expect, it } from 'vitest';
import { adapterClasses, adapterFactories, compositionViolations, describeViolation, portInterfaces, productionSources, type SourceFile } from './composition-rules.js';

const root = process.cwd();
const real = productionSources(root, ['src', 'backends']);
const classes = adapterClasses(real);
const factories = adapterFactories(real, classes, portInterfaces(real));
const factoryViolations = (files: SourceFile[]): string[] => compositionViolations(files, classes, factories).map((violation) => `${violation.file}:${violation.line} ${violation.rule} ${violation.detail}`);

const constructsLeases = `import { FileLeases } from '../adapters/leases/file-leases.js';\nexport const leases = (root: string) => new FileLeases({ root });\n`;
const constructsLazily = `export async function record(root: string) {\n  const { FileOutcomeStore } = await import('../../adapters/outcomes/outcome-store.js');\n  return new FileOutcomeStore(root).history();\n}\n`;

describe('the composition root', () => {
  it('knows the adapter classes from the sources (the rule has something to hold)', () => {
    for (const name of ['FileLeases', 'FileOutcomeStore', 'WorktreeStore', 'GitWorkspace', 'FileStateWriter', 'PostgresRunHistory', 'PostgresLoopLeases']) expect(classes).toContain(name);
    expect(classes).not.toContain('GitCommandError');
  });

  it('finds no adapter constructed outside the root and no production import of src/testing in the real tree', () => {
    expect(real.length).toBeGreaterThan(200);
    expect(compositionViolations(real, classes, factories).map((violation) => describeViolation(violation, root))).toEqual([]);
  });

  it('reports a use case that constructs an adapter (static import), with file, line and the fix; the root may', () => {
    const blocked = compositionViolations([{ path: 'src/use-cases/probe.ts', text: constructsLeases }], classes);
    expect(blocked).toEqual([{ file: 'src/use-cases/probe.ts', line: 2, rule: 'adapter-outside-root', detail: 'new FileLeases' }]);
    expect(describeViolation(blocked[0]!, root)).toMatch(/^src\/use-cases\/probe\.ts:2 new FileLeases: .*To fix: /);
    expect(compositionViolations([{ path: 'src/composition/probe.ts', text: constructsLeases }], classes)).toEqual([]);
    expect(compositionViolations([{ path: 'src/adapters/leases/probe.ts', text: constructsLeases }], classes)).toEqual([]);
  });

  it('reports one behind a dynamic import, in a command, the console and the fleet alike', () => {
    for (const path of ['src/use-cases/outcomes/probe.ts', 'src/cli/commands/probe.ts', 'src/server/probe.ts', 'src/fleet/probe.ts']) {
      expect(compositionViolations([{ path, text: constructsLazily }], classes).map((violation) => `${violation.line} ${violation.detail}`)).toEqual(['3 new FileOutcomeStore']);
    }
  });

  it('does not confuse a root factory call or a non-adapter class with construction', () => {
    const factory = `import { outcomeStoreFor } from '../composition/project-adapters.js';\nexport const store = (root: string) => [outcomeStoreFor(root), new Map(), new Error('x')];\n`;
    expect(compositionViolations([{ path: 'src/use-cases/probe.ts', text: factory }], classes)).toEqual([]);
  });

  it('reports production code importing src/testing (static, re-export, dynamic), not a comment naming it', () => {
    const files: SourceFile[] = [
      { path: 'src/replay/probe.ts', text: `import { recordPorts } from '../testing/replay.js';\nexport { recordPorts };\n` },
      { path: 'src/core/engine/probe.ts', text: `export { FixedClock } from '../../testing/fixed-clock.js';\n` },
      { path: 'backends/probe/index.ts', text: `export const load = () => import('../../src/testing/index.js');\n` },
    ];
    expect(compositionViolations(files, classes).map((violation) => `${violation.file}:${violation.line} ${violation.rule}`)).toEqual([
      'src/replay/probe.ts:1 production-imports-testing',
      'src/core/engine/probe.ts:1 production-imports-testing',
      'backends/probe/index.ts:1 production-imports-testing',
    ]);
    const allowed: SourceFile[] = [
      { path: 'src/core/engine/probe.ts', text: `// createMemoryPorts() from loop-runtime/testing gives a complete set (see src/testing/)\nexport const hint = 'loop-runtime/testing';\n` },
      { path: 'src/testing/probe.ts', text: `export { recordPorts } from '../replay/port-history.js';\nexport { FixedClock } from './fixed-clock.js';\n` },
    ];
    expect(compositionViolations(allowed, classes)).toEqual([]);
  });
});

describe('adapter factories outside the root', () => {
  const from = (path: string, text: string): SourceFile => ({ path, text });

  it('knows the factories from their declared types (the rule has something to hold), not the helpers', () => {
    const named = (module: string) => [...(factories.get(module) ?? [])];
    expect(named('src/adapters/clock/system-clock')).toEqual(['systemClock']);
    expect(named('src/adapters/clock/file-clock')).toEqual(['fileClock']);
    expect(named('src/adapters/command-runner/bwrap-runner')).toContain('createSandboxedRunner');
    expect(named('src/adapters/command-runner/process-runner')).toContain('createProcessRunner');
    expect(named('src/adapters/notify/webhook-notifier')).toEqual(['webhookNotifier']);
    expect(named('src/adapters/telemetry/telemetry')).toEqual(['telemetryObserver']);
    expect(named('src/adapters/agent-sandbox/agent-sandbox')).toContain('createAgentSandbox');
    expect(named('src/adapters/state-branch/state-branch')).toEqual([]);
    expect(named('src/adapters/git/git-run')).toEqual([]);
    expect(named('src/adapters/fs/atomic-file')).toEqual([]);
  });

  it('reports a command calling a factory (static import) and using a factory value, with file, line and the fix', () => {
    const text = `import { systemClock } from '../../adapters/clock/system-clock.js';\nimport { createSandboxedRunner } from '../../adapters/command-runner/bwrap-runner.js';\nexport const now = () => systemClock.now();\nexport const runner = () => createSandboxedRunner({ level: 'L2', allowUnsandboxed: false, log: () => {} });\n`;
    const blocked = compositionViolations([from('src/cli/commands/probe.ts', text)], classes, factories);
    expect(blocked.map((violation) => `${violation.line} ${violation.rule} ${violation.detail}`)).toEqual(['3 factory-outside-root systemClock', '4 factory-outside-root createSandboxedRunner']);
    expect(describeViolation(blocked[0]!, root)).toMatch(/^src\/cli\/commands\/probe\.ts:3 systemClock: .*To fix: /);
    // The twin: the same code in the root, or in an adapter, is the root's own wiring.
    expect(factoryViolations([from('src/composition/probe.ts', text.replaceAll('../../adapters', '../adapters'))])).toEqual([]);
    expect(factoryViolations([from('src/adapters/clock/probe.ts', text.replaceAll('../../adapters/clock', '.'))])).toEqual([]);
  });

  it('reports a factory reached through a dynamic import: destructured, inside Promise.all, and as a property, renamed too', () => {
    const text = [
      `export async function a() { const { fileClock: clockAt } = await import('../adapters/clock/file-clock.js'); return clockAt('/tmp/now'); }`,
      `export async function b() { const [{ loadProject }, { systemClock }] = await Promise.all([import('../project/load-project.js'), import('../adapters/clock/system-clock.js')]); return [loadProject, systemClock]; }`,
      `export async function c() { return (await import('../adapters/notify/webhook-notifier.js')).webhookNotifier({ url: 'http://127.0.0.1' }); }`,
    ].join('\n');
    for (const path of ['src/use-cases/probe.ts', 'src/server/probe.ts', 'src/fleet/probe.ts']) {
      expect(factoryViolations([from(path, text)])).toEqual([`${path}:1 factory-outside-root fileClock`, `${path}:2 factory-outside-root systemClock`, `${path}:3 factory-outside-root webhookNotifier`]);
    }
  });

  it('does not report the root handing a factory over, a helper from an adapter, a type, or a local of the same name', () => {
    const text = [
      `import { clockFor, sandboxRunnerFor } from '../composition/host-adapters.js';`,
      `import { readTextOrNull } from '../adapters/fs/atomic-file.js';`,
      `import type { createSandboxedRunner } from '../adapters/command-runner/bwrap-runner.js';`,
      `const systemClock = { now: () => 0 };`,
      `export const use = async (runnerFor: typeof createSandboxedRunner) => [clockFor(), sandboxRunnerFor, readTextOrNull('x'), systemClock.now(), runnerFor];`,
      `export const git = async () => (await import('../adapters/git/git-run.js')).git('/repo');`,
    ].join('\n');
    expect(factoryViolations([from('src/use-cases/probe.ts', text)])).toEqual([]);
  });
});
