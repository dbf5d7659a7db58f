/** The agent guarantees (test/agent-guarantee-matrix.ts) against the real `codex` CLI and its local fake model server. */
import { describeAgentGuarantees } from './agent-guarantee-matrix.js';

describeAgentGuarantees('codex');
