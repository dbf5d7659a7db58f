/**
 * Conformance suites for the ports (vitest). Import from a test file only: they register describe/it blocks.
 */
export {
  AGENT_BACKEND_CONFORMANCE_CASES,
  describeAgentBackendConformance,
  type AgentBackendConformanceCase,
  type AgentBackendConformanceOptions,
  type BackendUnderTest,
  type ConformanceContext,
} from './agent-backend.js';
export { CONFORMANCE_ANSWERS, FORBIDDEN_FILE, IMPLEMENT_FILE, PWNED_FILE, type ModelScript } from './agent-backend-fixtures.js';
