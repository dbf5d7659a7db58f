/**
 * Lint for the pure core's boundary only (src/core and backends/mock); the
 * compiler does the rest (tsconfig.core.json: no Node types, an ES-only lib).
 * No type-aware rules, so `npm run lint` stays well under a few seconds.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const root = path.dirname(fileURLToPath(import.meta.url));

/** Where the core may import from, relative to the package root. */
const CORE_ROOTS = ['src/core', 'backends/mock'];

/**
 * Files outside the core that core modules import today. Each is pure (the core
 * tsconfig compiles it with no Node types, because tsc follows the import), but
 * each is a layering debt: the engine should receive these, not import them.
 * Shrink this list; never grow it without a line in DESIGN.md.
 */
const KNOWN_OUTSIDE_IMPORTS = new Set([]);

/** Packages the core may use: each is pure JavaScript with no I/O on the paths the core calls. */
const PURE_PACKAGES = ['zod', 'yaml', 'croner', 'minimatch', 'diff'];

function insideCore(relativeTarget) {
  return CORE_ROOTS.some((directory) => relativeTarget === directory || relativeTarget.startsWith(`${directory}/`));
}

/** Relative imports must resolve inside the core (or to a listed known exception). */
const relativeImportsStayInCore = {
  meta: {
    type: 'problem',
    messages: {
      outside:
        '"{{specifier}}" resolves to {{target}}, outside the pure core ({{roots}}). The core reaches the world only through ports. ' +
        'To fix: define or use a port in src/core/ports and let the composition root (src/composition/create-runtime.ts) pass the adapter in.',
    },
    schema: [],
  },
  create(context) {
    const filename = context.physicalFilename ?? context.filename;
    function check(node, source) {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const specifier = source.value;
      if (!specifier.startsWith('.')) return;
      const target = path.relative(root, path.resolve(path.dirname(filename), specifier)).split(path.sep).join('/');
      const asTs = target.replace(/\.js$/, '.ts');
      if (insideCore(target) || KNOWN_OUTSIDE_IMPORTS.has(asTs)) return;
      context.report({ node, messageId: 'outside', data: { specifier, target, roots: CORE_ROOTS.join(', ') } });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.source),
    };
  },
};

const injectInstead = 'The core is deterministic: time, ids and I/O are injected through ports (Clock, IdGenerator, …).';

export default [
  { ignores: ['dist/**', 'node_modules/**'] },
  {
    files: ['src/core/**/*.ts', 'backends/mock/**/*.ts'],
    ignores: ['**/*.test.ts'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { 'core-boundary': { rules: { 'relative-imports-stay-in-core': relativeImportsStayInCore } } },
    rules: {
      'core-boundary/relative-imports-stay-in-core': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^node:',
              message: 'The core does no I/O. To fix: move this into an adapter under src/adapters/<port>/ behind a port in src/core/ports.',
            },
            {
              regex: `^(?!\\.{1,2}/|node:)(?!(?:${PURE_PACKAGES.join('|')})(?:/|$))`,
              message: `The core may import only pure packages (${PURE_PACKAGES.join(', ')}). To fix: use it from an adapter, or add the package to PURE_PACKAGES in eslint.config.js after checking it does no I/O.`,
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression', message: 'No dynamic import() in the core: what it loads cannot be checked. To fix: import statically.' },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'Date', message: `${injectInstead} To fix: take time from Clock; format or parse it with src/core/time/utc-time.ts.` },
        ...['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate', 'queueMicrotask'].map((name) => ({
          name,
          message: `Timers are I/O the core cannot replay. ${injectInstead}`,
        })),
        ...['process', 'Buffer', 'require', 'module', '__dirname', '__filename', 'fetch', 'console', 'performance', 'crypto', 'globalThis', 'global', 'self', 'window'].map(
          (name) => ({ name, message: `\`${name}\` reaches the host. ${injectInstead} To fix: do it in an adapter behind a port.` }),
        ),
        { name: 'Function', message: 'No code from strings in the core.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: `${injectInstead} To fix: take randomness from an injected source.` },
      ],
      'no-eval': 'error',
      'no-new-func': 'error',
      'no-implied-eval': 'error',
    },
  },
  {
    // The code every tick runs. Node 20's V8 adds each key that follows a leading spread (`{ ...object, key }`,
    // `{ ...a, ...b }`) through a slow path, ~0.5 µs a key: spread over a tick's records, requests and copies it
    // was half the engine's time (docs/design/build.md, "The engine's own cost").
    files: ['src/core/engine/**/*.ts', 'src/core/budget/**/*.ts', 'src/core/verify/**/*.ts', 'src/core/gate/**/*.ts', 'backends/mock/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression', message: 'No dynamic import() in the core: what it loads cannot be checked. To fix: import statically.' },
        {
          selector: 'ObjectExpression > SpreadElement:first-child ~ *',
          message:
            'A key after a leading spread is slow on Node 20 (~0.5 µs a key, every tick). To fix: Object.assign({}, object, { key }) — ' +
            'or Object.assign(fresh, { key }) on an object built here — or put the keys first when no key can collide.',
        },
        {
          // Not only after a leading one: `{ kind, ...base, at, tokens }` took the same path (the budget journal's settle entry).
          selector: 'ObjectExpression > SpreadElement ~ Property',
          message:
            'A key after a spread is slow on Node 20 wherever the spread stands (every tick). To fix: write the keys out, ' +
            'or set the optional ones on the object just built (`if (x) object.key = x`).',
        },
      ],
    },
  },
];
