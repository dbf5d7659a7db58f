export { checkDiffIntegrity } from './check-diff-integrity.js';
export type { IntegrityFinding, IntegrityKind, IntegrityOptions } from './check-diff-integrity.js';
export { combineVerdict, parseVerdict } from './combine-verdict.js';
export type { VerdictInput, VerdictResult } from './combine-verdict.js';
export { parsePatch } from './parse-patch.js';
export type { FilePatch } from './parse-patch.js';
export { configKindOf, isCiFile, isTestFile } from './test-conventions.js';
export type { ConfigKind } from './test-conventions.js';
export * from './test-reports/index.js';
