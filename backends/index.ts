/** Built-in backend plugins. Each is a factory plus its options type. */
export { createMockBackend, MockBackend, MOCK_SCENARIOS } from './mock/index.js';
export type { MockBackendOptions, MockCall, MockScenario } from './mock/index.js';
export { createClaudeCodeBackend, type ClaudeCodeBackendSettings } from './claude-code/index.js';
export { createOpenAIBackend, type OpenAIBackendSettings } from './openai/index.js';
export { createOllamaBackend, type OllamaBackendSettings } from './ollama/index.js';
export { resolveBackend, assertAgentBackend, BUILT_IN_BACKENDS, type BackendContext, type BackendPluginModule, type BuiltInBackendName } from './registry.js';
export { DEFAULT_PRICES, sanitizeUntrusted, wrapUntrusted, type PriceTable, type ModelPrice } from './shared/index.js';
