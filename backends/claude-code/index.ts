export { createClaudeCodeBackend, type ClaudeCodeBackendSettings } from './create-claude-code-backend.js';
export { toCliArgs, toCliEnv, toolPolicy, type ClaudePermissionMode, type ClaudeToolPolicy } from './to-cli-args.js';
export { mapClaudeResult, type ClaudeRunFacts } from './map-result.js';
export { parseStreamLine, ClaudeStreamEventSchema, ResultEventSchema, type ClaudeStreamEvent, type ResultEvent } from './stream-events.js';
