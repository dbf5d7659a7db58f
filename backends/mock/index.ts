export { createMockBackend, MockBackend, MOCK_SCENARIOS } from './mock-backend.js';
export type { MockBackendOptions, MockCall, MockScenario } from './mock-backend.js';
