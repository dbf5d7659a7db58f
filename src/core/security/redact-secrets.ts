/**
 * Secret redaction for everything the runtime writes: state file, run log,
 * transcripts, command evidence, pull-request bodies, recordings, the event
 * journal, console responses.
 *
 * Three layers, each a `SecretRule`; the union of their spans is replaced:
 * - exact values we know (environment secrets, the repository's secret files);
 * - the maintained rule set, injected by the caller (`options.rules`: secretlint's
 *   recommended preset, loaded by `src/adapters/secret-rules/`; the core imports no package);
 * - the core's own token shapes (`TOKEN_PATTERNS`): what the rule set lacks (Stripe, GitLab,
 *   URL credentials, `password=…` assignments) and a floor for redactors built without it
 *   (the model proxy calls `createRedactor(values)`).
 */
import { mergeSpans, patternRule, valuesRule, type SecretRule, type SecretSpan } from './secret-rule.js';

/** What a redacted secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Secret values shorter than this are not redacted by value: too many false positives ("true", "1234"). */
export const MIN_SECRET_LENGTH = 8;

/**
 * No rule finds anything in a shorter text (the shortest, `pwd=` and a 4-character value, is 8), so the
 * ids, enum values and numbers that make up most of a recording skip every rule.
 */
const SHORTEST_FIND = 8;

export interface RedactOptions {
  /** Exact secret values (e.g. from `secretValuesFromEnv`). Values shorter than 8 characters are ignored. */
  secrets?: readonly string[];
  /** Rules from a maintained rule set, asked besides the core's own shapes. */
  rules?: readonly SecretRule[];
}

interface TokenPattern {
  name: string;
  pattern: RegExp;
  /** Replace only this capture group (keeps "password=" readable); whole match when absent. */
  group?: number;
  /** A substring every match contains (a cheap skip for texts without it). */
  needs?: string;
}

/** Token shapes redacted wherever they appear. */
export const TOKEN_PATTERNS: readonly TokenPattern[] = [
  {
    name: 'pem-private-key',
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  },
  { name: 'github-pat', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g },
  { name: 'github-token', pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g },
  { name: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  // Literal first, no leading \b: V8 then scans for the literal instead of trying every word boundary (4x faster).
  { name: 'aws-access-key', pattern: /A(?:KIA|SIA|3T[A-Z0-9]|GPA|IDA|ROA|IPA|NPA|NVA)[A-Z0-9]{16}\b/g },
  { name: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: 'google-api-key', pattern: /AIza[A-Za-z0-9_-]{35}\b/g },
  // Not in secretlint's recommended preset (11.7): Stripe secret/restricted keys and webhook secrets, GitLab tokens.
  { name: 'stripe-key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}/g },
  { name: 'stripe-webhook-secret', pattern: /\bwhsec_[A-Za-z0-9]{20,}/g },
  { name: 'gitlab-token', pattern: /\bgl(?:pat|dt|ptt|rt|cbt|ft|imt|agent|oas|soat|ffct)-[A-Za-z0-9_-]{20,}/g },
  { name: 'npm-token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  // scheme://user:password@host — the password (a token used as the user, `https://TOKEN@host`, is caught by its shape).
  { name: 'url-credentials', pattern: /([A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/[^\s:/?#@"'<>]{1,256}:)([^\s/?#@"'<>]{1,256})(?=@)/g, group: 2, needs: '://' },
  { name: 'bearer', pattern: /\b(Bearer\s+)([A-Za-z0-9._~+/=-]{8,})/gi, group: 2 },
  {
    name: 'assignment',
    // password=…, token: "…", api_key=…, client_secret=… (the name ends in the keyword,
    // so `tokenizer: cl100k` and `tokens: 4200` stay readable). The match starts at the keyword, not at the
    // name's start: only the value is redacted, and a leading `\b[A-Za-z0-9_-]*` made it the slowest shape.
    pattern: /((?:password|passwd|pwd|token|secret|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key)["']?\s*[:=]\s*["']?)([^\s"'&,;]{4,})/gi,
    group: 2,
  },
];

/** "tokens: 4200" in a run log is a count, not a credential. */
function isCount(value: string): boolean {
  return /^[0-9.,_]+$/.test(value);
}

// `const token = input.slice(start, index)` is code, not a credential: an unquoted value with a call in it.
// Redacting it hid the very line a real bug was on from the model (the real-repo test).
function isCode(value: string, prefix: string): boolean {
  return value.includes('(') && !/["']$/.test(prefix);
}

/** The core's own shapes as rules. */
export const CORE_RULES: readonly SecretRule[] = TOKEN_PATTERNS.map(({ name, pattern, group, needs }) =>
  patternRule(name, pattern, {
    ...(needs === undefined ? {} : { needs }),
    ...(group === undefined ? {} : { group, keep: (value: string, prefix: string) => isCount(value) || isCode(value, prefix) }),
  }),
);

function redactSpans(text: string, spans: SecretSpan[]): string {
  if (spans.length === 0) return text;
  let result = '';
  let at = 0;
  for (const span of mergeSpans(spans)) {
    result += text.slice(at, span.start) + REDACTED;
    at = span.end;
  }
  return result + text.slice(at);
}

function applyRules(text: string, rules: readonly SecretRule[]): string {
  if (text.length < SHORTEST_FIND) return text;
  const spans: SecretSpan[] = [];
  for (const rule of rules) for (const span of rule.find(text)) spans.push(span);
  return redactSpans(text, spans);
}

/**
 * Replaces secret values and token shapes in `text` with `[REDACTED]`.
 *
 * @example
 * ```ts
 * redactSecrets('token ghp_0123456789abcdefghij0123456789abcdef', { secrets: [] });
 * // → 'token [REDACTED]'
 * redactSecrets('key is hunter2hunter2', { secrets: ['hunter2hunter2'] });
 * // → 'key is [REDACTED]'
 * ```
 */
export function redactSecrets(text: string, options: RedactOptions = {}): string {
  return applyRules(text, [valuesRule('secret-values', options.secrets ?? [], MIN_SECRET_LENGTH), ...(options.rules ?? []), ...CORE_RULES]);
}

/**
 * A redactor bound to a fixed list of secrets (and optionally a rule set), for
 * adapters that redact many strings with the same environment.
 *
 * @example
 * ```ts
 * const redact = createRedactor(secretValuesFromEnv(process.env), { rules: loadedRules });
 * redact('npm_0123…'); // → '[REDACTED]'
 * ```
 */
export function createRedactor(secrets: readonly string[], options: { rules?: readonly SecretRule[] } = {}): (text: string) => string {
  const rules = [valuesRule('secret-values', secrets, MIN_SECRET_LENGTH), ...(options.rules ?? []), ...CORE_RULES];
  return (text) => applyRules(text, rules);
}
