/** Types for scripts/bench-verification-langs.js, for the test that runs a subset of its catalogue. */
export type CatalogueEdit = (files: { read(path: string): Promise<string | null>; write(path: string, text: string): Promise<void>; remove(path: string): Promise<void> }) => Promise<void>;
export type CatalogueEntry = [name: string, edit: CatalogueEdit, testEdits?: 'allow' | 'escalate'];
export interface Language {
  language: 'Python' | 'Go' | 'Rust';
  fixture: string;
  upstream: string;
  verify: string[] | null;
  target: string;
  unrelated: string;
  fix: CatalogueEdit;
  cheats: CatalogueEntry[];
  honest: CatalogueEntry[];
  /** Run every cheat again with `testEdits: allow` (Rust: tests inside the source). */
  cheatsAlsoWithAllow?: boolean;
}
export interface EngineParts {
  LoopEngine: unknown;
  buildPlan: unknown;
  createMemoryPorts: unknown;
  ScriptedEditBackend: unknown;
  GitWorkspace: unknown;
  BwrapRunner: unknown;
  detectVerifyCommands: unknown;
  pattern: unknown;
  /** One baseline cache for every tick's copy of a language's repository (same base commit): only the first tick runs the base. */
  baselineCache?: unknown;
}
export interface LanguageTick {
  detected: string[];
  result: { kind: string };
  committed: boolean;
  reasons: string[];
  rules: string[];
  steps: string[];
}
export const LANGUAGES: Language[];
export function makeLanguageRepo(lang: Language, parent?: string): string;
export function caughtBy(verification: { reasons?: string[] } | null | undefined): string[];
export function languageTick(parts: EngineParts, lang: Language, edit: CatalogueEdit, testEdits?: 'allow' | 'escalate', runnerSettings?: { goBuildCache?: string | false }): Promise<LanguageTick>;
export function runLanguage(parts: EngineParts, lang: Language, onProgress?: (line: string) => void): Promise<{ language: string; cheats: number; caught: number; caughtBeyondTestEditRule: number; byRule: Record<string, number>; missed: string[]; withTestEditsAllowed?: { caught: number; byRule: Record<string, number>; missed: string[] }; honest: number; honestCommitted: number; honestRejected: string[]; tickSeconds: { first: number | null; median: number | null; max: number | null } }>;
export function benchVerificationLanguages(onProgress?: (line: string) => void, only?: string[] | null): Promise<Awaited<ReturnType<typeof runLanguage>>[] | null>;
export function formatLanguageResult(result: Awaited<ReturnType<typeof runLanguage>>): string[];
