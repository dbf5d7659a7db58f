/**
 * The sandbox profile: one description of what a command may touch, compiled
 * to bubblewrap arguments on Linux (`toBwrapArgs`) and to a Seatbelt profile
 * on macOS (`toSeatbeltProfile`). The verifier, the implementer's command
 * runner and `loop-runtime sandbox run` all use the same profile, so what a
 * user debugs is what a loop gets.
 *
 * Pure: the node adapter fills in host facts (which hidden paths exist, real
 * paths, whether we run as root).
 */
import * as z from 'zod';
import { DEFAULT_ENV_ALLOWLIST } from '../security/scrub-env.js';

/** An absolute, normalized POSIX path. */
export const AbsolutePathSchema = z
  .string()
  .min(1)
  .refine((value) => value.startsWith('/'), { message: 'must be an absolute path (start with "/")' })
  .refine((value) => !value.split('/').includes('..'), { message: 'must not contain ".." segments' })
  .transform(normalizePath);

export const NETWORK_MODES = ['none', 'loopback', 'allowlist'] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

export const SandboxProfileSchema = z.strictObject({
  /** Directories the command may write (the worktree first). Everything else is read-only. */
  writableRoots: z.array(AbsolutePathSchema).min(1),
  /**
   * When present, the only host paths visible read-only (besides the writable
   * roots): the sandbox starts from an empty root instead of the whole host
   * filesystem. A readable root deeper than a writable one covers it read-only
   * (e.g. a worktree's `.git` file). Absent: everything is readable.
   */
  readableRoots: z.array(AbsolutePathSchema).optional(),
  /**
   * Directories shown read-only at `target` (the checkout's `node_modules` inside the worktree), mounted after
   * the writable roots so they stay read-only inside a writable worktree. The target must exist.
   */
  readOnlyBinds: z.array(z.strictObject({ source: AbsolutePathSchema, target: AbsolutePathSchema })).optional(),
  /** Paths that must be invisible even when they exist: credentials, other worktrees. */
  hiddenPaths: z.array(AbsolutePathSchema),
  /**
   * - `none`: own network namespace and no IP sockets at all (Linux: seccomp denies AF_INET/AF_INET6).
   * - `loopback`: own network namespace with only its own `lo` (the host's 127.0.0.1 is not reachable).
   * - `allowlist`: named domains only; needs a proxying adapter, refused by bwrap and Seatbelt builders.
   */
  network: z.enum(NETWORK_MODES),
  allowedDomains: z.array(z.string().min(1)),
  /** Variable names (or `PREFIX_*`) passed from the host environment. */
  envAllowlist: z.array(z.string().min(1)),
  /** A fresh, empty /tmp (and TMPDIR) per command instead of the host's. */
  privateTmp: z.boolean(),
  timeoutMs: z.int().positive(),
  outputLimitBytes: z.int().positive(),
});

export type SandboxProfile = z.infer<typeof SandboxProfileSchema>;

/**
 * Paths under the user's home that usually hold credentials. Hidden from
 * every sandboxed command.
 */
export const DEFAULT_HIDDEN_HOME_PATHS: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.gnupg',
  '.netrc',
  '.docker',
  '.kube',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.cargo/credentials.toml',
  '.cargo/credentials',
  '.claude',
  '.claude.json',
  '.codex',
  '.local/share/keyrings',
  '.password-store',
];

export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
export const DEFAULT_OUTPUT_LIMIT_BYTES = 64 * 1024;

export interface DefaultProfileOptions {
  /** The one writable root: the attempt's worktree. */
  worktree: string;
  /** The user's home directory; credential paths under it are hidden. */
  home: string;
  /** More paths to hide, e.g. the loop's other worktrees. */
  hiddenExtra?: readonly string[];
  /** More writable directories (e.g. a build cache). */
  writableExtra?: readonly string[];
  network?: NetworkMode;
  timeoutMs?: number;
  outputLimitBytes?: number;
}

/** Collapses duplicate and trailing slashes: `/a//b/` → `/a/b`. */
export function normalizePath(path: string): string {
  const collapsed = path.replace(/\/+/g, '/');
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed;
}

/** True when `path` is `root` or inside it. */
export function isWithin(path: string, root: string): boolean {
  const p = normalizePath(path);
  const r = normalizePath(root);
  return r === '/' || p === r || p.startsWith(`${r}/`);
}

/**
 * The profile the verifier uses: the worktree writable, everything else
 * read-only, credentials hidden, no network, a scrubbed environment.
 *
 * @example
 * ```ts
 * const profile = defaultProfile({ worktree: '/repo/.loop/wt/a1', home: '/home/me',
 *   hiddenExtra: ['/repo/.loop/wt/a2'] });
 * profile.network; // 'none'
 * ```
 */
export function defaultProfile(options: DefaultProfileOptions): SandboxProfile {
  const home = normalizePath(options.home);
  const hidden = [
    ...DEFAULT_HIDDEN_HOME_PATHS.map((relative) => `${home === '/' ? '' : home}/${relative}`),
    ...(options.hiddenExtra ?? []),
  ];
  return SandboxProfileSchema.parse({
    writableRoots: [options.worktree, ...(options.writableExtra ?? [])],
    hiddenPaths: [...new Set(hidden.map(normalizePath))],
    network: options.network ?? 'none',
    allowedDomains: [],
    envAllowlist: [...DEFAULT_ENV_ALLOWLIST],
    privateTmp: true,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    outputLimitBytes: options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT_BYTES,
  });
}
