/**
 * The runtime's one redactor: every string the runtime persists or serves —
 * recordings, the event journal, the run log, state files, the attempt ledger,
 * console responses, CLI output — passes a redactor made here, and only here.
 *
 * It redacts, as one union of spans (`createRedactor`):
 * - the values of secret-named environment variables;
 * - the values assigned in the repository's secret files (`.env*`, `.npmrc`,
 *   credentials files), found by the sandbox's `findSecretFiles` when the
 *   runtime opens the repository (`prepareRedaction`, from `openRuntime` and
 *   the tick session);
 * - secretlint's recommended rule set (`src/adapters/secret-rules/`), loaded on
 *   the first string redacted, so commands that write nothing never load it;
 * - the core's own shapes (Stripe, GitLab, npm, URL credentials, assignments).
 */
import { createRedactor } from '../../core/security/redact-secrets.js';
import { secretValuesFromEnv } from '../../core/security/scrub-env.js';
import { secretlintRules } from '../secret-rules/secretlint-rules.js';

export type Redact = (text: string) => string;
type Env = Record<string, string | undefined>;

/** Secret values found in each repository's secret files, by repository root. */
const repositoryValues = new Map<string, readonly string[]>();
/** One redactor per environment and repository: built once, shared by every writer. */
const redactors = new WeakMap<Env, Map<string, Redact>>();

/**
 * Reads the values of the repository's secret files so that every redactor for
 * `root` redacts them. Called where a repository is opened; again to pick up a
 * changed `.env`. A walk that fails leaves the environment and the rules.
 *
 * @example
 * ```ts
 * await prepareRedaction('/repo');
 * redactorFor(process.env, '/repo')('DB=' + valueFromDotEnv); // → 'DB=[REDACTED]'
 * ```
 */
export async function prepareRedaction(root: string, worktreesDir: string | null = null): Promise<void> {
  const [{ findSecretFiles }, { worktreeHidingPaths }] = await Promise.all([
    import('../agent-sandbox/find-secret-files.js'),
    import('../workspace/worktrees-location.js'),
  ]);
  const found = await findSecretFiles(root, { skip: worktreeHidingPaths(root, worktreesDir) }).catch(() => null);
  const values = found?.values ?? [];
  const before = repositoryValues.get(root);
  // Same values, same array: the redactors built on it stay.
  if (before && before.length === values.length && before.every((value, index) => value === values[index])) return;
  repositoryValues.set(root, values);
}

/**
 * The redactor for an environment and a repository (`root`; `null` when no
 * repository is open). Cheap to call: the same function comes back for the
 * same `env` object and root; it is built on the first string it redacts and
 * rebuilt when `prepareRedaction` finds other values.
 */
export function redactorFor(env: Env, root: string | null): Redact {
  let byRoot = redactors.get(env);
  if (!byRoot) redactors.set(env, (byRoot = new Map()));
  const existing = byRoot.get(root ?? '');
  if (existing) return existing;
  let built: { values: readonly string[] | undefined; redact: Redact } | null = null;
  const redact: Redact = (text) => {
    if (text.length === 0) return text;
    const values = root === null ? undefined : repositoryValues.get(root);
    if (!built || built.values !== values) {
      built = { values, redact: createRedactor([...secretValuesFromEnv(env), ...(values ?? [])], { rules: secretlintRules() }) };
    }
    return built.redact(text);
  };
  byRoot.set(root ?? '', redact);
  return redact;
}

/**
 * A copy of `value` with every string in plain objects and arrays redacted; anything else (a function, a class
 * instance, a number) is kept as it is, so a method's answer keeps its shape (unlike a JSON round trip).
 *
 * @example
 * ```ts
 * redactValues({ notes: ['npm_…'], count: 2 }, redact); // → { notes: ['[REDACTED]'], count: 2 }
 * ```
 */
export function redactValues<T>(value: T, redact: Redact): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((entry: unknown) => redactValues(entry, redact)) as T;
  if (value !== null && typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) return value;
    const copy: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) copy[key] = redactValues(entry, redact);
    return copy as T;
  }
  return value;
}
