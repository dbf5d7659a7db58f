/**
 * Which files hold secrets, and the secret values inside them. Pure: the
 * sandbox masks files whose names match, and the proxy and the worktree scrub
 * redact the values found in them.
 */
import { Minimatch } from 'minimatch';
import { MIN_SECRET_LENGTH } from '../../core/security/redact-secrets.js';

/**
 * File names (matched against the base name) that hold credentials: dotenv
 * files, keys and certificates, package-manager and git credentials, and the
 * secret patterns of the default gate denylist (`*_key*`, `*_secret*`).
 * `.env.example`-style templates are masked too: failing closed costs little.
 */
export const SECRET_FILE_PATTERNS: readonly string[] = [
  '.env',
  '.env.*',
  '*.env',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.jks',
  '*.keystore',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '.git-credentials',
  '.htpasswd',
  'credentials',
  'credentials.json',
  '*_key*',
  '*_secret*',
  '*.tfstate',
  '*.tfvars',
];

/** Directories whose whole content is masked (the gate denylist's `secrets/**` and `credentials/**`). */
export const SECRET_DIRECTORY_NAMES: readonly string[] = ['secrets', 'credentials', '.aws', '.ssh', '.gnupg'];

/** Compiled once: `minimatch(name, pattern)` compiles its pattern on every call, and every command's secret-file walk asks per file name. */
const SECRET_FILE_MATCHERS = SECRET_FILE_PATTERNS.map((pattern) => new Minimatch(pattern, { dot: true, nocase: true }));

/** True when a file's base name marks it as a secret file. */
export function isSecretFileName(name: string): boolean {
  return SECRET_FILE_MATCHERS.some((matcher) => matcher.match(name));
}

/** True when a directory's base name marks its content as secret. */
export function isSecretDirectoryName(name: string): boolean {
  return SECRET_DIRECTORY_NAMES.includes(name.toLowerCase());
}

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*(.*?)\s*$/;

function unquote(value: string): string {
  const quoted = /^(["'`])([\s\S]*)\1$/.exec(value);
  if (quoted) return quoted[2] ?? '';
  return value.replace(/\s+#.*$/, '');
}

/**
 * The values a secret file assigns (`NAME=value`, `name: value`, quoted or
 * not) plus whole lines of key material, each at least 8 characters — what
 * must never reach the model or a kept worktree.
 *
 * @example
 * ```ts
 * secretValuesInFile('API_TOKEN="canary-1234567890"\nDEBUG=1\n'); // ['canary-1234567890']
 * ```
 */
export function secretValuesInFile(text: string): string[] {
  const values = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(#|$)/.test(line)) continue;
    const assignment = ASSIGNMENT.exec(line);
    const value = assignment ? unquote(assignment[2] ?? '') : line.trim();
    // Lines of PEM/base64 key material are secrets too; the BEGIN/END markers are not.
    if (!assignment && /^-----(BEGIN|END) /.test(value)) continue;
    if (value.length >= MIN_SECRET_LENGTH && !/^(true|false|null|yes|no)$/i.test(value)) values.add(value);
  }
  return [...values];
}
