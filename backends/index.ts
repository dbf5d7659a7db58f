/** Built-in backend plugins. Each is a factory plus its options type. */
export { createMockBackend, MockBackend, MOCK_SCENARIOS } from './mock/index.js';
export type { MockBackendOptions, MockCall, MockScenario } from './mock/index.js';
