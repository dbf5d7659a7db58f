/**
 * Environment hygiene: which variables a command or agent may see, and which
 * values must be redacted from anything we write.
 */

/**
 * Variables a sandboxed command gets by default. Chosen so common toolchains
 * (npm, node, python, go, cargo, make) behave as they do in a terminal, while
 * nothing that usually carries credentials passes:
 * - PATH, HOME, USER, LOGNAME, SHELL: tools locate themselves and their caches.
 * - LANG, LC_*, TZ, TERM: output encoding and dates match the user's.
 * - CI, NO_COLOR, FORCE_COLOR: test runners pick non-interactive output.
 * - TMPDIR: where the tools put temp files (the sandbox makes /tmp private).
 * - NODE_OPTIONS is deliberately absent: it can `--require` arbitrary code
 *   and is a common place for injected preloads; pass it explicitly if a
 *   loop needs it.
 */
export const DEFAULT_ENV_ALLOWLIST: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TZ',
  'TERM',
  'TMPDIR',
  'CI',
  'NO_COLOR',
  'FORCE_COLOR',
];

const SECRET_NAME = [
  /(^|_)(API_?)?KEY(S)?$/i,
  /(^|_)TOKEN(S)?$/i,
  /SECRET/i,
  /PASSWORD|PASSWD|PASSPHRASE/i,
  /(^|_)PAT$/i,
  /CREDENTIAL/i,
  /(^|_)AUTH$/i,
  /^(AWS|AZURE|GCP|GOOGLE)_.*(KEY|TOKEN|SECRET)/i,
  /(^|_)SESSION$/i,
  /PRIVATE/i,
  /COOKIE/i,
  /^(DATABASE|REDIS|MONGO(DB)?)_URL$/i,
];

/** True when a variable name looks like it holds a credential (`*_KEY`, `*_TOKEN`, `*SECRET*`, `*PASSWORD*`…). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.some((pattern) => pattern.test(name));
}

/**
 * The values of variables whose names look secret, for `redactSecrets`.
 * Values shorter than 8 characters are skipped (they would redact ordinary words).
 *
 * @example
 * ```ts
 * secretValuesFromEnv({ GITHUB_TOKEN: 'ghp_abc…', PATH: '/usr/bin' }); // → ['ghp_abc…']
 * ```
 */
export function secretValuesFromEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < 8) continue;
    if (isSecretName(name)) values.add(value);
  }
  return [...values];
}

function matchesAllowlist(name: string, allowlist: readonly string[]): boolean {
  return allowlist.some((entry) =>
    entry.endsWith('*') ? name.startsWith(entry.slice(0, -1)) : name === entry,
  );
}

/**
 * Keeps only allowlisted variables (exact names, or prefixes ending in `*`
 * such as `LC_*`). A variable whose name looks secret is dropped even when
 * allowlisted by a wildcard; name it exactly to pass it on purpose.
 *
 * @example
 * ```ts
 * scrubEnv({ PATH: '/bin', GITHUB_TOKEN: 'x', LC_ALL: 'C' }); // → { PATH: '/bin', LC_ALL: 'C' }
 * ```
 */
export function scrubEnv(
  env: Readonly<Record<string, string | undefined>>,
  allowlist: readonly string[] = DEFAULT_ENV_ALLOWLIST,
): Record<string, string> {
  const exact = new Set(allowlist.filter((entry) => !entry.endsWith('*')));
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (exact.has(name) || (matchesAllowlist(name, allowlist) && !isSecretName(name))) result[name] = value;
  }
  return result;
}
