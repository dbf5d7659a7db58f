export { createAgentSandbox, sandboxEnv, CREDENTIAL_VARIABLES, type AgentSandbox, type AgentSandboxSettings, type AgentLaunch, type AgentLaunchRequest, type AgentLaunchReport } from './agent-sandbox.js';
export { agentProfile, SYSTEM_READABLE_PATHS, type AgentProfileInput } from './agent-profile.js';
export { requireAgentContainment, type AgentContainment, type AgentContainmentOptions } from './require-agent-sandbox.js';
export { startModelProxy, redactBody, type ModelProxy, type ModelProxySettings, type ModelProxyStats } from './model-proxy.js';
export { findSecretFiles, type SecretFiles } from './find-secret-files.js';
export { isSecretFileName, isSecretDirectoryName, secretValuesInFile, SECRET_FILE_PATTERNS, SECRET_DIRECTORY_NAMES } from './secret-files.js';
export { scrubNewSecrets, type ScrubReport } from './scrub-worktree.js';
