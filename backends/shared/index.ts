/** Building blocks shared by the backends (and useful to third-party backends). */
export { runToolLoop, type ToolLoopOptions } from './agent-loop.js';
export { StallDetector, compactMessages, needsCompaction, planNextCall, stableStringify, type CallPlan, type StallVerdict } from './loop-guards.js';
export { estimateTokens, parseToolArguments, type ChatModel, type LoopMessage, type ModelTurn, type ModelTurnRequest, type ToolCall, type ToolDefinition } from './model.js';
export { parseCheckOutput, parseImplementOutput, parseTriageOutput, TriageOutputSchema, type ParseResult } from './parse-output.js';
export { resolveInside, type GuardedPath } from './path-guard.js';
export { buildRolePrompt, roleTask, workspaceOf, type FinishStyle, type RolePrompt } from './prompt.js';
export { ModelCallError, classifyModelError, parseRetryAfter, realSleep, withRetry, type ErrorClass, type RetryOptions, type RetryOutcome } from './retry.js';
export { toolsForRole } from './tool-set.js';
export type { ToolContext, ToolKind, ToolOutcome, WorkspaceTool } from './tool-types.js';
export { sanitizeUntrusted, wrapUntrusted } from './untrusted.js';
export {
  DEFAULT_PRICES, DEFAULT_PRICES_AS_OF, addUsage, costOf, findPrice, fromAnthropicUsage, fromOllamaUsage, fromOpenAIChatUsage, fromOpenAIResponsesUsage,
  type ModelPrice, type PriceTable,
} from './usage.js';
export { createContainedCli, finishContainedResult, type ContainedCliSettings, type ContainedOutcome, type ContainedRun, type ContainmentSettings } from './contained-cli.js';
export { startCliProcess, killProcessGroup, createIsolatedHome, scrubbedCliEnv, type CliExit, type CliProcess, type StopReason } from './cli-process.js';
