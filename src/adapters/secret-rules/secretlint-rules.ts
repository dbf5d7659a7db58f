/**
 * The maintained rule set: secretlint's recommended preset
 * (`@secretlint/secretlint-rule-preset-recommend`, MIT), driven through its
 * rule interface (`create(context, options)` → `file(source)` → `context.report`)
 * and handed to the pure redactor as `SecretRule`s.
 *
 * Why the rule interface rather than `@secretlint/core`'s `lintSource`: that
 * API is asynchronous and per file, while redaction is a synchronous function
 * over every string we persist. Each rule's scan is synchronous for text
 * without a file name (the only asynchronous branch reads `.p12` files).
 *
 * Besides the reported range, every secret the rule names in its message
 * (`TOKEN`, `KEY`, `CREDENTIAL`…) is redacted wherever it occurs: some rules
 * report the range of the whole match but the length of the secret group.
 */
import { createRequire } from 'node:module';
import { LoopRuntimeError } from '../../core/errors.js';
import type { SecretRule, SecretSpan } from '../../core/security/secret-rule.js';

const PRESET = '@secretlint/secretlint-rule-preset-recommend';
/** Message properties that carry the secret itself (not a file name or a type). */
const SECRET_PROPS = new Set(['TOKEN', 'KEY', 'ID', 'CREDENTIAL', 'URI', 'URL']);
/** A named value shorter than this is not searched for elsewhere in the text (the reported range still counts). */
const MIN_NAMED_LENGTH = 8;

interface Report {
  message: unknown;
  range: readonly [number, number];
}
interface Source {
  content: string;
  contentType: 'text';
  ext: string;
}
interface ScannerRule {
  meta: { id: string; type?: string };
  messages?: Record<string, unknown>;
  create(context: unknown, options: Record<string, unknown>): { file?: (source: Source) => unknown };
}
interface Preset {
  rules: readonly ScannerRule[];
}

/**
 * Per-rule options (none today). The AWS rule's `enableIDScanRule` stays off: access key ids are the core's
 * `aws-access-key` shape, and account ids are not secrets; the account-id scan tripled the rule's cost.
 */
const RULE_OPTIONS: Record<string, Record<string, unknown>> = {};

/**
 * A cheap test every text a rule can report on passes, read from the preset's patterns (11.7.1): the AWS rule
 * builds its regular expression anew per call (12 µs on a 150-byte string, more than all other rules together),
 * and the URL rules need a scheme separator. A gate that a new preset version outgrows would hide secrets, so
 * the adapter test pins one positive sample per gated rule.
 */
const RULE_GATES: Record<string, (text: string) => boolean> = {
  '@secretlint/secretlint-rule-aws': (text) => /secret_?access_?key/i.test(text),
  '@secretlint/secretlint-rule-basicauth': (text) => text.includes('://'),
  '@secretlint/secretlint-rule-database-connection-string': (text) => text.includes('://'),
};

function toRule(rule: ScannerRule): SecretRule {
  const gate = RULE_GATES[rule.meta.id];
  let reports: Report[] = [];
  let named: string[] = [];
  const context = {
    report: (report: Report) => reports.push(report),
    ignore: () => undefined,
    createTranslator: () => (_id: string, props: Record<string, unknown> = {}) => {
      for (const [name, value] of Object.entries(props)) if (SECRET_PROPS.has(name) && typeof value === 'string') named.push(value);
      return { id: _id };
    },
  };
  const handlers = rule.create(context, RULE_OPTIONS[rule.meta.id] ?? {});
  return {
    id: rule.meta.id,
    find(text) {
      if (gate && !gate(text)) return [];
      reports = [];
      named = [];
      const pending = handlers.file?.({ content: text, contentType: 'text', ext: '' });
      // Not reached for text without a file name; a rule that turns asynchronous must not crash the process.
      if (pending && typeof (pending as Promise<unknown>).catch === 'function') (pending as Promise<unknown>).catch(() => undefined);
      const spans: SecretSpan[] = reports.map((report) => ({ start: report.range[0], end: report.range[1] }));
      for (const value of new Set(named)) {
        if (value.length < MIN_NAMED_LENGTH) continue;
        for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + value.length)) spans.push({ start: at, end: at + value.length });
      }
      return spans;
    },
  };
}

let loaded: readonly SecretRule[] | null = null;

/**
 * secretlint's recommended scanners as `SecretRule`s, loaded once per process
 * (synchronously: Node ≥ 20.19 `require`s the preset's ES module).
 *
 * @example
 * ```ts
 * const redact = createRedactor(secretValuesFromEnv(process.env), { rules: secretlintRules() });
 * ```
 */
export function secretlintRules(): readonly SecretRule[] {
  if (loaded) return loaded;
  let preset: Preset;
  try {
    preset = createRequire(import.meta.url)(PRESET) as Preset;
  } catch (error) {
    // Fail closed: without the rule set nothing is written, rather than written with secrets the rules would catch.
    throw new LoopRuntimeError('PRECONDITION_FAILED', `The secret rule set ${PRESET} could not be loaded: ${error instanceof Error ? error.message : String(error)}.`, {
      fix: 'reinstall loop-runtime (npm install) so its dependency is present.',
      cause: error,
    });
  }
  // The comment filter (`secretlint-disable`) only suppresses other rules' reports: nothing to redact.
  loaded = preset.rules.filter((rule) => rule.meta.type === 'scanner' && !rule.meta.id.endsWith('filter-comments')).map(toRule);
  return loaded;
}

/** The preset's version, for `doctor` and the design notes. */
export function secretlintVersion(): string {
  return (createRequire(import.meta.url)(`${PRESET}/package.json`) as { version: string }).version;
}
