/**
 * A command runner that really runs a tiny JavaScript test suite kept in a
 * memory workspace, so verification rules (the base's tests, narrowed
 * scripts, weakened assertions) are tested against real outcomes without a
 * subprocess. `npm test` reads `scripts.test` from the workspace's
 * package.json (`jstest <file…> [--testNamePattern <re>] [|| true]`), loads
 * each test file with a CommonJS-style `require` over the workspace's files,
 * and prints jest-like `Expected:`/`Received:` lines for failures.
 */
import type { CommandSpec } from '../core/plan/execution-plan.js';
import type { Clock, CommandEvidence, CommandRunner, CommandRunOptions, WorkspaceFiles } from '../core/ports/index.js';

type Test = { name: string; run: () => void; skipped: boolean };

const show = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value));

function makeExpect() {
  const fail = (matcher: string, expected: unknown, received: unknown) => {
    throw new Error(`expect(received).${matcher}(expected)\n\nExpected: ${show(expected)}\nReceived: ${show(received)}`);
  };
  return (received: unknown) => {
    const matchers = (negate: boolean) => {
      const check = (ok: boolean, matcher: string, expected: unknown) => {
        if (ok === negate) fail(`${negate ? 'not.' : ''}${matcher}`, expected, received);
      };
      return {
        toBe: (expected: unknown) => check(Object.is(received, expected), 'toBe', expected),
        toEqual: (expected: unknown) => check(JSON.stringify(received) === JSON.stringify(expected), 'toEqual', expected),
        toBeTruthy: () => check(Boolean(received), 'toBeTruthy', 'truthy'),
        toBeDefined: () => check(received !== undefined, 'toBeDefined', 'defined'),
        toBeNull: () => check(received === null, 'toBeNull', null),
        toBeCloseTo: (expected: number, digits = 2) => check(Math.abs(Number(received) - expected) < 10 ** -digits / 2, 'toBeCloseTo', expected),
        toContain: (expected: unknown) => check(typeof received === 'string' || Array.isArray(received) ? received.includes(expected as never) : false, 'toContain', expected),
        toThrow: () => {
          let threw = false;
          try {
            (received as () => unknown)();
          } catch {
            threw = true;
          }
          check(threw, 'toThrow', 'a throw');
        },
      };
    };
    return { ...matchers(false), not: matchers(true) };
  };
}

function resolvePath(from: string, request: string): string {
  const parts = from.split('/').slice(0, -1);
  for (const segment of request.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.') parts.push(segment);
  }
  const path = parts.join('/');
  return path.endsWith('.js') ? path : `${path}.js`;
}

/** Runs the test files named by the workspace's `scripts.test`; returns the exit code and output. */
export async function runJsTests(files: Pick<WorkspaceFiles, 'read'>): Promise<{ exitCode: number; output: string }> {
  const manifest = await files.read('package.json');
  const script = manifest ? (JSON.parse(manifest) as { scripts?: { test?: string } }).scripts?.test : undefined;
  if (!script) return { exitCode: 1, output: 'npm error Missing script: "test"' };
  const alwaysPasses = /\|\|\s*true\s*$/.test(script);
  const words = script.replace(/\|\|\s*true\s*$/, '').trim().split(/\s+/);
  if (words[0] !== 'jstest') return { exitCode: 127, output: `sh: 1: ${words[0]}: not found` };
  const patternIndex = words.indexOf('--testNamePattern');
  const pattern = patternIndex >= 0 ? new RegExp(words[patternIndex + 1] ?? '') : null;
  const testFiles = words.slice(1).filter((word, index) => !word.startsWith('--') && index !== patternIndex);
  const cache = new Map<string, unknown>();
  const load = async (path: string): Promise<unknown> => {
    if (cache.has(path)) return cache.get(path);
    const code = await files.read(path);
    if (code === null) throw new Error(`Cannot find module '${path}'`);
    const module = { exports: {} as unknown };
    // Sources are loaded up front so the synchronous require inside test code finds them.
    const requests = [...code.matchAll(/require\(['"]([^'"]+)['"]\)/g)].map((match) => resolvePath(path, match[1] ?? ''));
    const loaded = new Map<string, unknown>();
    for (const request of requests) loaded.set(request, await load(request));
    cache.set(path, module.exports);
    const tests: Test[] = [];
    const it = Object.assign((name: string, run: () => void) => tests.push({ name, run, skipped: false }), {
      skip: (name: string, run: () => void) => tests.push({ name, run, skipped: true }),
    });
    new Function('module', 'exports', 'require', 'it', 'test', 'expect', code)(module, module.exports, (request: string) => loaded.get(resolvePath(path, request)), it, it, makeExpect());
    cache.set(path, module.exports);
    return tests.length > 0 ? tests : module.exports;
  };
  const lines: string[] = [];
  let failed = 0;
  let passed = 0;
  for (const file of testFiles) {
    let tests: Test[];
    try {
      tests = (await load(file)) as Test[];
    } catch (error) {
      failed++;
      lines.push(`FAIL ${file}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    for (const test of Array.isArray(tests) ? tests : []) {
      if (test.skipped || (pattern && !pattern.test(test.name))) continue;
      try {
        test.run();
        passed++;
      } catch (error) {
        failed++;
        lines.push(`● ${test.name}\n${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  lines.push(`Tests: ${failed} failed, ${passed} passed`);
  return { exitCode: failed > 0 && !alwaysPasses ? 1 : 0, output: lines.join('\n') };
}

/**
 * @example
 * ```ts
 * const commands = new JsTestCommandRunner(clock, (cwd) => workspace.files(handleAt(cwd)));
 * ```
 */
export class JsTestCommandRunner implements CommandRunner {
  readonly specificationVersion = 'command-runner-v1' as const;
  readonly isolation = 'in-process';
  readonly runs: Array<{ command: string; cwd: string; exitCode: number }> = [];

  constructor(
    private readonly clock: Clock,
    private readonly filesAt: (cwd: string) => Pick<WorkspaceFiles, 'read'>,
  ) {}

  async run(command: CommandSpec, options: CommandRunOptions): Promise<CommandEvidence> {
    const result = command.command === 'npm test' ? await runJsTests(this.filesAt(options.cwd)) : { exitCode: 127, output: `${command.command}: not found` };
    this.runs.push({ command: command.command, cwd: options.cwd, exitCode: result.exitCode });
    return { command: command.command, exitCode: result.exitCode, signal: null, timedOut: false, durationMs: 0, output: result.output, finishedAt: this.clock.now() };
  }
}
