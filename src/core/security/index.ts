export { createRedactor, MIN_SECRET_LENGTH, REDACTED, redactSecrets, TOKEN_PATTERNS } from './redact-secrets.js';
export type { RedactOptions } from './redact-secrets.js';
export { DEFAULT_ENV_ALLOWLIST, isSecretName, scrubEnv, secretValuesFromEnv } from './scrub-env.js';
