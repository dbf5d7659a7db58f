export { freshStateFile, hasPauseLine, updateStateFile } from './state-file.js';
export { onlyRuntimeContent } from './runtime-owned.js';
export type { StateFileOptions, StateNote, StateUpdate } from './state-file.js';
export {
  HEADING_RULES,
  isoSecond,
  mergeWaitingItems,
  parseWaitingItems,
  renderFinding,
  renderNote,
  renderWaitingItem,
} from './state-blocks.js';
export type { HeadingRule, OwnedBlockKind, WaitingItem } from './state-blocks.js';
export { joinLines, markerLine, sanitizeInline, scanLines, splitLines } from './markdown-lines.js';
export type { Line, LineContext, OwnedBlock, ScannedLines } from './markdown-lines.js';
export {
  appendRunLogLine,
  formatRunLogLine,
  freshRunLog,
  parseRunLog,
  parseRunLogLine,
  RUN_LOG_MARKER,
  RUN_LOG_OUTCOMES,
  runLogLineFromTick,
} from './run-log.js';
export { RunLogEntrySchema } from './run-log-schema.js';
export type { AppendRunLogOptions, RunLogEntry, RunLogLine } from './run-log.js';
export { activeHalt, haltRunLogLine, resumeRunLogLine } from './halt-lines.js';
