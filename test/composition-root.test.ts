/**
 * One composition root (STYLE.md, DESIGN.md "Entry points share one wiring path"): only src/composition (and adapters
 * composing their own internals, backends theirs, the test doubles) construct adapter classes; use cases, commands,
 * the console and the fleet get them from the root. And production code never imports src/testing. Checked from the
 * parsed sources over the real tree; hostile snippets (never written to the tree) show each rule bites, each paired
 * with its allowed twin.
 */
import { describe, expect, it } from 'vitest';
import { adapterClasses, compositionViolations, describeViolation, productionSources, type SourceFile } from './composition-rules.js';

const root = process.cwd();
const real = productionSources(root, ['src', 'backends']);
const classes = adapterClasses(real);

const constructsLeases = `import { FileLeases } from '../adapters/leases/file-leases.js';\nexport const leases = (root: string) => new FileLeases({ root });\n`;
const constructsLazily = `export async function record(root: string) {\n  const { OutcomeStore } = await import('../../adapters/outcomes/outcome-store.js');\n  return new OutcomeStore(root).history();\n}\n`;

describe('the composition root', () => {
  it('knows the adapter classes from the sources (the rule has something to hold)', () => {
    for (const name of ['FileLeases', 'OutcomeStore', 'WorktreeStore', 'GitWorkspace', 'FileStateWriter', 'PostgresRunHistory', 'PostgresLoopLeases']) expect(classes).toContain(name);
    expect(classes).not.toContain('GitCommandError');
  });

  it('finds no adapter constructed outside the root and no production import of src/testing in the real tree', () => {
    expect(real.length).toBeGreaterThan(200);
    expect(compositionViolations(real, classes).map((violation) => describeViolation(violation, root))).toEqual([]);
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
      expect(compositionViolations([{ path, text: constructsLazily }], classes).map((violation) => `${violation.line} ${violation.detail}`)).toEqual(['3 new OutcomeStore']);
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
