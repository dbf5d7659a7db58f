/**
 * Secret redaction for everything the runtime writes: state file, run log,
 * transcripts, command evidence, pull-request bodies.
 *
 * Two layers: the exact values of secrets found in the environment (the
 * strongest signal — we know them), and common token shapes (a token the
 * agent found on disk or printed from a config file).
 */

/** What a redacted secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Secret values shorter than this are not redacted by value: too many false positives ("true", "1234"). */
export const MIN_SECRET_LENGTH = 8;

export interface RedactOptions {
  /** Exact secret values (e.g. from `secretValuesFromEnv`). Values shorter than 8 characters are ignored. */
  secrets?: readonly string[];
}

interface TokenPattern {
  name: string;
  pattern: RegExp;
  /** Replace only this capture group (keeps "password=" readable); whole match when absent. */
  group?: number;
}

/** Token shapes redacted wherever they appear. Ordered from most to least specific. */
export const TOKEN_PATTERNS: readonly TokenPattern[] = [
  {
    name: 'pem-private-key',
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  },
  { name: 'github-pat', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g },
  { name: 'github-token', pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g },
  { name: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { name: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: 'google-api-key', pattern: /\bAIza[A-Za-z0-9_-]{35}\b/g },
  { name: 'bearer', pattern: /\b(Bearer\s+)([A-Za-z0-9._~+/=-]{8,})/gi, group: 2 },
  {
    name: 'assignment',
    // password=…, token: "…", api_key=…, client_secret=… (the name ends in the keyword,
    // so `tokenizer: cl100k` and `tokens: 4200` stay readable)
    pattern:
      /\b((?:[A-Za-z0-9_-]*(?:password|passwd|pwd|token|secret|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key))["']?\s*[:=]\s*["']?)([^\s"'&,;]{4,})/gi,
    group: 2,
  },
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Replaces secret values and common token shapes in `text` with `[REDACTED]`.
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
  let result = text;
  // Longest first so a secret that contains another is replaced whole.
  const values = [...new Set(options.secrets ?? [])]
    .filter((value) => value.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  if (values.length > 0) {
    const combined = new RegExp(values.map(escapeRegExp).join('|'), 'g');
    result = result.replace(combined, REDACTED);
  }
  for (const { pattern, group } of TOKEN_PATTERNS) {
    pattern.lastIndex = 0;
    result = result.replace(pattern, (match: string, ...groups: unknown[]) => {
      if (group === undefined) return REDACTED;
      const captured = groups.slice(0, group).map((value) => (typeof value === 'string' ? value : ''));
      const value = captured[group - 1] ?? '';
      if (value.startsWith(REDACTED)) return match;
      // "tokens: 4200" in a run log is a count, not a credential.
      if (/^[0-9.,_]+$/.test(value)) return match;
      const prefix = captured.slice(0, group - 1).join('');
      // `const token = input.slice(start, index)` is code, not a credential: an unquoted value with a call in it.
      // Redacting it hid the very line a real bug was on from the model (the real-repo test).
      if (value.includes('(') && !/["']$/.test(prefix)) return match;
      return `${prefix}${REDACTED}`;
    });
  }
  return result;
}

/**
 * A redactor bound to a fixed list of secrets, for adapters that redact many
 * strings with the same environment.
 */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const fixed = [...secrets];
  return (text) => redactSecrets(text, { secrets: fixed });
}
