export { createCodexBackend, type CodexBackendSettings } from './create-codex-backend.js';
export { toCodexArgs, toCodexConfigToml, toCodexModelCatalog, codexRolePolicy, CODEX_PROVIDER_ID, type CodexRolePolicy, type CodexSandboxMode } from './to-codex-args.js';
export { mapCodexResult, type CodexRunFacts } from './map-codex-result.js';
export { parseCodexLine, CodexEventSchema, CodexUsageSchema, type CodexEvent, type CodexUsage } from './codex-events.js';

