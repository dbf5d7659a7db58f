/**
 * Backends are plugins selected by name in the loop's config. Built-ins load
 * lazily (so `loop-runtime` starts fast and the OpenAI SDK stays optional);
 * anything else is a third-party module — a path or a package name — that
 * exports `createBackend(settings)` returning an `agent-backend-v2` backend.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import type { AgentBackend } from '../src/core/ports/index.js';
import { MOCK_SCENARIOS, type MockBackendOptions } from './mock/mock-backend.js';
import { LoopRuntimeError } from '../src/core/errors.js';

export const BUILT_IN_BACKENDS = ['claude-code', 'codex', 'opencode', 'gemini-cli', 'openai', 'ollama', 'mock'] as const;
export type BuiltInBackendName = (typeof BUILT_IN_BACKENDS)[number];

export interface BackendContext {
  /** The project root: the cwd for roles without a workspace, and where plugin paths resolve. */
  root: string;
}

/**
 * Built-in CLI backends that live in their own folder and export
 * `createBackend(settings, context)`; imported lazily. The imports are
 * literal so the bundle (scripts/build-bundle.js) carries each as a chunk: a
 * computed path would resolve against the bundle's directory, not this one.
 */
const CLI_BACKEND_MODULES: Readonly<Record<string, { path: string; load: () => Promise<Record<string, unknown>> }>> = {
  opencode: { path: './opencode/index.js', load: () => import('./opencode/index.js') },
  'gemini-cli': { path: './gemini-cli/index.js', load: () => import('./gemini-cli/index.js') },
  gemini: { path: './gemini-cli/index.js', load: () => import('./gemini-cli/index.js') },
};

/** What a third-party backend module must export. */
export interface BackendPluginModule {
  createBackend(settings: Record<string, unknown>): AgentBackend | Promise<AgentBackend>;
}

/** Drops null/undefined so `model: null` from a plan means "the backend's default". */
function defined(settings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== null && value !== undefined));
}

function requireModel(name: string, settings: Record<string, unknown>): string {
  const model = settings['model'];
  if (typeof model === 'string' && model.trim() !== '') return model;
  throw new LoopRuntimeError('CONFIG_INVALID', `The ${name} backend needs a model, and none is configured.`, {
    fix: `set "model:" beside "backend: ${name}" in the loop-runtime: block of LOOP.md front matter (e.g. model: ${name === 'ollama' ? 'qwen2.5-coder:7b' : 'gpt-4.1-mini'}).`,
  });
}

/** Reads `apiKeyEnv: NAME` into `apiKey`, so keys never have to live in config files. */
function withApiKeyFromEnv(settings: Record<string, unknown>): Record<string, unknown> {
  const variable = settings['apiKeyEnv'];
  if (typeof variable !== 'string') return settings;
  const { apiKeyEnv: _ignored, ...rest } = settings;
  const value = process.env[variable];
  if (!value) {
    throw new LoopRuntimeError('CONFIG_INVALID', `The backend's apiKeyEnv names ${variable}, but that environment variable is empty.`, {
      fix: `export ${variable}=<your key>, or remove apiKeyEnv to use the provider's default variable.`,
    });
  }
  return { ...rest, apiKey: value };
}

function isPathLike(name: string): boolean {
  return name.startsWith('.') || name.startsWith('/') || name.startsWith('file:') || /^[A-Za-z]:[\\/]/.test(name);
}

async function importPlugin(name: string, root: string): Promise<Record<string, unknown>> {
  if (isPathLike(name)) {
    const url = name.startsWith('file:') ? name : pathToFileURL(path.resolve(root, name)).href;
    return (await import(url)) as Record<string, unknown>;
  }
  let resolved: string | undefined;
  try {
    resolved = createRequire(path.join(root, 'package.json')).resolve(name);
  } catch {
    resolved = undefined;
  }
  return (await import(resolved ? pathToFileURL(resolved).href : name)) as Record<string, unknown>;
}

function notFound(name: string, why: string, cause?: unknown): LoopRuntimeError {
  return new LoopRuntimeError('BACKEND_NOT_FOUND', `Backend "${name}" could not be loaded: ${why}.`, {
    ...(cause !== undefined ? { cause } : {}),
    fix: `use one of ${BUILT_IN_BACKENDS.join(', ')}, or a module path / installed package that exports createBackend(settings) returning { specificationVersion: 'agent-backend-v2', name, run } where run(request) answers { ok: true, role: request.role, output, usage } or { ok: false, reason, message, retryable, usage }.`,
  });
}

/** Checks a plugin's backend before the engine ever calls it. */
export function assertAgentBackend(name: string, value: unknown): AgentBackend {
  if (!value || typeof value !== 'object') throw notFound(name, 'createBackend() did not return an object');
  const version = 'specificationVersion' in value ? value.specificationVersion : undefined;
  if (version !== 'agent-backend-v2') {
    const upgrade = version === 'agent-backend-v1' ? ' (v2 requests are role-discriminated and every answer carries the role it answers)' : '';
    throw notFound(name, `it implements specificationVersion ${JSON.stringify(version)}, not "agent-backend-v2"${upgrade}`);
  }
  if (!isAgentBackend(value)) throw notFound(name, 'it has no run(request) method or no name');
  return value;
}

function isAgentBackend(value: object): value is AgentBackend {
  return 'run' in value && typeof value.run === 'function' && 'name' in value && typeof value.name === 'string';
}

const MockSettingsSchema = z.object({
  scenarios: z.array(z.enum(MOCK_SCENARIOS)).optional(),
  targetPath: z.string().optional(),
  itemKey: z.string().optional(),
  recordCalls: z.boolean().optional(),
});

/** The mock's settings from config; unknown keys (model, …) are ignored, bad scenario names are a config error. */
function mockOptions(settings: Record<string, unknown>): MockBackendOptions {
  const parsed = MockSettingsSchema.safeParse(settings);
  if (parsed.success) {
    const { scenarios, targetPath, itemKey, recordCalls } = parsed.data;
    return {
      ...(scenarios ? { scenarios } : {}),
      ...(targetPath !== undefined ? { targetPath } : {}),
      ...(itemKey !== undefined ? { itemKey } : {}),
      ...(recordCalls !== undefined ? { recordCalls } : {}),
    };
  }
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(settings)'}: ${issue.message}`).join('; ');
  throw new LoopRuntimeError('CONFIG_INVALID', `The mock backend's settings are not valid: ${problems}.`, {
    fix: `use scenarios from ${MOCK_SCENARIOS.join(', ')}, and strings for targetPath and itemKey.`,
  });
}

/** Loads a built-in CLI backend module. */
async function loadCliBackend(name: string, builtIn: (typeof CLI_BACKEND_MODULES)[string], settings: Record<string, unknown>, context: BackendContext): Promise<AgentBackend> {
  const relative = builtIn.path;
  let module: Record<string, unknown>;
  try {
    module = await builtIn.load();
  } catch (error) {
    throw notFound(name, `its module ${relative} could not be imported (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`, error);
  }
  const factory = module['createBackend'];
  if (typeof factory !== 'function') throw notFound(name, `its module ${relative} does not export createBackend(settings, context)`);
  return assertAgentBackend(name, await factory({ projectRoot: context.root, ...settings }, context));
}

/**
 * Resolves a backend by name.
 *
 * @example
 * ```ts
 * const backend = await resolveBackend('openai', { model: 'gpt-4.1-mini', apiKeyEnv: 'OPENAI_API_KEY' }, { root: process.cwd() });
 * const custom = await resolveBackend('./my-backend.js', { model: 'x' }, { root: '/repo' });
 * ```
 */
export async function resolveBackend(name: string, settings: Record<string, unknown>, context: BackendContext): Promise<AgentBackend> {
  const options = defined(settings);
  switch (name) {
    case 'claude':
    case 'claude-code': {
      const { createClaudeCodeBackend } = await import('./claude-code/index.js');
      return createClaudeCodeBackend({ projectRoot: context.root, ...options });
    }
    case 'openai': {
      const model = requireModel(name, options);
      const { createOpenAIBackend } = await import('./openai/index.js');
      return createOpenAIBackend({ projectRoot: context.root, ...withApiKeyFromEnv(options), model });
    }
    case 'ollama': {
      const model = requireModel(name, options);
      const { createOllamaBackend } = await import('./ollama/index.js');
      return createOllamaBackend({ projectRoot: context.root, ...options, model });
    }
    case 'codex': {
      const { createCodexBackend } = await import('./codex/index.js');
      return createCodexBackend({ projectRoot: context.root, ...options });
    }
    case 'mock': {
      const { createMockBackend } = await import('./mock/index.js');
      return createMockBackend(mockOptions(options));
    }
  }
  const builtIn = CLI_BACKEND_MODULES[name];
  if (builtIn !== undefined) return loadCliBackend(name, builtIn, options, context);
  let module: Record<string, unknown>;
  try {
    module = await importPlugin(name, context.root);
  } catch (error) {
    throw notFound(name, `it is not a built-in backend and importing it failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`, error);
  }
  const factory = (module['createBackend'] ?? (module['default'] as Record<string, unknown> | undefined)?.['createBackend']) as
    | BackendPluginModule['createBackend']
    | undefined;
  if (typeof factory !== 'function') throw notFound(name, 'the module does not export a createBackend(settings) function');
  return assertAgentBackend(name, await factory(options));
}
