import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redactSecrets } from './redact-secrets.js';
import { DEFAULT_ENV_ALLOWLIST, isSecretName, scrubEnv, secretValuesFromEnv } from './scrub-env.js';

const tokens: Array<[string, string]> = [
  ['GitHub classic PAT', 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'],
  ['GitHub OAuth', 'gho_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2'],
  ['GitHub app', 'ghs_' + '0123456789abcdefghijABCDEFGHIJ012345'],
  ['GitHub fine-grained PAT', 'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJK'],
  ['OpenAI', 'sk-proj-' + 'abcdefghijklmnopqrstuvwxyz012345'],
  ['OpenAI legacy', 'sk-' + 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef012345'],
  ['Anthropic', 'sk-ant-api03-' + 'abcdefghijklmnopqrstuvwxyz_0123456789-ABCDEFG'],
  ['AWS access key', 'AKIA' + 'IOSFODNN7EXAMPLE'],
  ['Slack', 'xoxb-' + '123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'],
  ['npm', 'npm_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'],
  ['Stripe live secret', 'sk_live_' + '51HqZ2bCdEfGhIjKlMnOpQrStUv'],
  ['Stripe restricted', 'rk_live_' + '51HqZ2bCdEfGhIjKlMnOpQrStUv'],
  ['Stripe webhook', 'whsec_' + 'AbCdEfGhIjKlMnOpQrStUvWxYz012345'],
  ['GitLab PAT', 'glpat-' + 'xY9zA8bC7dE6fG5hI4jK'],
  ['GitLab deploy token', 'gldt-' + 'xY9zA8bC7dE6fG5hI4jKlm'],
];

describe('redactSecrets', () => {
  it.each(tokens)('redacts a %s token by shape', (_name, token) => {
    const text = `config: ${token} end`;
    const result = redactSecrets(text);
    expect(result).not.toContain(token);
    expect(result).toContain(REDACTED);
    expect(result.startsWith('config: ')).toBe(true);
  });

  it('redacts exact secret values from the environment, longest first', () => {
    const result = redactSecrets('a=hunter2hunter2-extended b=hunter2hunter2', {
      secrets: ['hunter2hunter2', 'hunter2hunter2-extended'],
    });
    expect(result).toBe(`a=${REDACTED} b=${REDACTED}`);
  });

  it('ignores secret values shorter than 8 characters', () => {
    expect(redactSecrets('the value is true', { secrets: ['true'] })).toBe('the value is true');
  });

  it('escapes regex characters in secret values', () => {
    expect(redactSecrets('x $e(c)r.e+t* y', { secrets: ['$e(c)r.e+t*'] })).toBe(`x ${REDACTED} y`);
  });

  it('redacts Bearer tokens and keeps the scheme', () => {
    expect(redactSecrets('Authorization: Bearer abc.def-ghi_jkl')).toBe(`Authorization: Bearer ${REDACTED}`);
  });

  it('redacts PEM private keys across lines', () => {
    const pem = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAA\n-----END OPENSSH PRIVATE KEY-----';
    expect(redactSecrets(`before\n${pem}\nafter`)).toBe(`before\n${REDACTED}\nafter`);
  });

  it.each([
    ['password=s3cretvalue', `password=${REDACTED}`],
    ['DB_PASSWORD: "s3cretvalue"', `DB_PASSWORD: "${REDACTED}"`],
    ['https://x.test/?token=abcd1234&x=1', `https://x.test/?token=${REDACTED}&x=1`],
    ['api_key = zyxw9876', `api_key = ${REDACTED}`],
    ['client_secret: abcdef123', `client_secret: ${REDACTED}`],
    ['AWS_SECRET_KEY=abcdef123', `AWS_SECRET_KEY=${REDACTED}`],
    ['private-key: "abcdef123"', `private-key: "${REDACTED}"`],
  ])('redacts the value of %j', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it.each([
    ['    const token = input.slice(start, index).trim()'],
    ['  const token = crypto.randomUUID()'],
    ['secret: getSecret(name)'],
  ])('leaves code that assigns a call to a secret-named variable alone: %j', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it('still redacts a quoted value with a parenthesis in it', () => {
    expect(redactSecrets('password: "hunter(2)hunter"')).toBe(`password: "${REDACTED}"`);
  });

  it.each([
    ['https://deploy:' + 'hunter2pass' + '@git.example.test/repo.git', 'https://deploy:[REDACTED]@git.example.test/repo.git'],
    ['postgres://app:' + 's3cr3t-pw' + '@db:5432/app', 'postgres://app:[REDACTED]@db:5432/app'],
    ['clone "https://x-access-token:' + 'abc123def456' + '@github.com/o/r"', // the assignment shape (`…token:value`) takes the host too: over-redaction, on the safe side
      'clone "https://x-access-token:[REDACTED]"'],
  ])('redacts the password in a URL: %j', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it.each([
    ['see https://example.test/path?q=1 and mailto:someone@example.test'],
    ['ssh git@github.com:owner/repo.git'],
    ['time 12:30 @ noon, ratio 3:4@2x'],
    ['the npm_config_cache variable and sk_live_ prefix are words here'],
    ['const token = input.slice(start, index)'],
  ])('leaves text that only looks like a URL credential or token prefix alone: %j', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it('redacts overlapping finds once, and rules never see another rule\'s [REDACTED]', () => {
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    expect(redactSecrets(`token=${token}`, { secrets: [token] })).toBe(`token=${REDACTED}`);
  });

  it('asks injected rules and unions their spans with the core shapes', () => {
    const rule = { id: 'word', find: (text: string) => [...text.matchAll(/zebra-[0-9]+/g)].map((match) => ({ start: match.index, end: match.index + match[0].length })) };
    expect(redactSecrets('a zebra-42 b', { rules: [rule] })).toBe(`a ${REDACTED} b`);
    expect(redactSecrets('a zebra-42 b')).toBe('a zebra-42 b');
    expect(createRedactor([], { rules: [rule] })('x zebra-1 y AKIA' + 'IOSFODNN7EXAMPLE')).toBe(`x ${REDACTED} y ${REDACTED}`);
  });

  it('leaves ordinary run-log text alone', () => {
    const text = '| 2025-01-01 | daily-triage | no-op | tokens: 4200 | maxTokens=120000 | tokenizer: cl100k_base | task-runner ok |';
    expect(redactSecrets(text, { secrets: [] })).toBe(text);
  });
});

describe('secretValuesFromEnv', () => {
  it('collects values of secret-looking names only', () => {
    const env = {
      GITHUB_TOKEN: 'ghp_value_long_enough',
      OPENAI_API_KEY: 'sk-value-long-enough',
      AWS_SECRET_ACCESS_KEY: 'aws-secret-value',
      DB_PASSWORD: 'db-password-value',
      SHORT_TOKEN: 'abc',
      PATH: '/usr/bin:/bin',
      HOME: '/home/me',
      UNSET_KEY: undefined,
    };
    expect(secretValuesFromEnv(env).sort()).toEqual(
      ['aws-secret-value', 'db-password-value', 'ghp_value_long_enough', 'sk-value-long-enough'].sort(),
    );
  });

  it.each(['NPM_TOKEN', 'ANTHROPIC_API_KEY', 'MY_SECRET', 'PGPASSWORD', 'GH_PAT', 'SSH_PRIVATE_KEY', 'DATABASE_URL'])('treats %s as secret', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each(['PATH', 'HOME', 'LANG', 'TERM', 'KEYBOARD_LAYOUT', 'TOKENIZERS_PARALLELISM'])('treats %s as ordinary', (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});

describe('scrubEnv', () => {
  it('keeps only the default allowlist', () => {
    const env = { PATH: '/bin', HOME: '/h', LC_ALL: 'C', GITHUB_TOKEN: 'x', SSH_AUTH_SOCK: '/tmp/agent', NODE_OPTIONS: '--require evil.js' };
    expect(scrubEnv(env)).toEqual({ PATH: '/bin', HOME: '/h', LC_ALL: 'C' });
  });

  it('drops secret-looking names matched only by a wildcard', () => {
    expect(scrubEnv({ APP_MODE: 'x', APP_TOKEN: 'y' }, ['APP_*'])).toEqual({ APP_MODE: 'x' });
  });

  it('passes a secret when it is named exactly', () => {
    expect(scrubEnv({ NPM_TOKEN: 'y' }, ['NPM_TOKEN'])).toEqual({ NPM_TOKEN: 'y' });
  });

  it('does not allow NODE_OPTIONS by default', () => {
    expect(DEFAULT_ENV_ALLOWLIST).not.toContain('NODE_OPTIONS');
  });
});
