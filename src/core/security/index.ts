export { CORE_RULES, createRedactor, MIN_SECRET_LENGTH, REDACTED, redactSecrets, TOKEN_PATTERNS } from './redact-secrets.js';
export type { RedactOptions } from './redact-secrets.js';
export { mergeSpans, patternRule, valuesRule } from './secret-rule.js';
export type { PatternRuleOptions, SecretRule, SecretSpan } from './secret-rule.js';
export { DEFAULT_ENV_ALLOWLIST, isSecretName, scrubEnv, secretValuesFromEnv } from './scrub-env.js';
export { plainLine, QUOTED_MAX, quoteUntrusted } from './untrusted-text.js';
