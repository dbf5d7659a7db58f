/**
 * The git plumbing behind the state branch (state-branch.ts): a runner with
 * no prompts, blob reads, a commit built in a private index without touching
 * HEAD or the working tree, and a push that tells a rejection from a failure.
 */
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { execa } from 'execa';
import { NO_HOOKS } from '../git/git-run.js';
import { LoopRuntimeError } from '../../core/errors.js';
import type { StateBranchOptions, StateFile } from './state-branch.js';

export async function checkoutBlobs(git: Git, files: readonly StateFile[]): Promise<Record<string, string | null>> {
  const result: Record<string, string | null> = {};
  for (const file of files) result[file.path] = await git.blobAtHead(file.path);
  return result;
}

/** git's whole message on one line (its last line alone reads "and the repository exists."). */
export function oneLine(stderr: string): string {
  return stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
}

export async function fetchTip(git: Git, remote: string, branch: string): Promise<string | null> {
  const listed = await git.run(['ls-remote', '--heads', remote, `refs/heads/${branch}`]);
  if (listed.exitCode !== 0) {
    throw new LoopRuntimeError('STATE_FAILED', `Could not reach the remote "${remote}": ${oneLine(listed.stderr)}`, {
      retryable: true,
      fix: `check \`git remote -v\` and the job's credentials; pass --remote <name> if the remote is not "${remote}".`,
    });
  }
  const sha = listed.stdout.trim().split(/\s+/)[0];
  if (!sha) return null;
  const fetched = await git.run(['fetch', '--quiet', '--no-tags', remote, `+refs/heads/${branch}:refs/loop-runtime/${branch}`]);
  if (fetched.exitCode !== 0) {
    throw new LoopRuntimeError('STATE_FAILED', `Could not fetch ${branch} from ${remote}: ${oneLine(fetched.stderr)}`, { retryable: true, fix: 'retry; check the network and credentials.' });
  }
  return (await git.run(['rev-parse', `refs/loop-runtime/${branch}`])).stdout.trim();
}

export type Git = ReturnType<typeof gitRunner>;

export function gitRunner(options: StateBranchOptions) {
  const env: Record<string, string | undefined> = {
    GIT_TERMINAL_PROMPT: '0',
    ...(options.env ?? process.env),
  };
  const run = async (args: string[], extra: { input?: string; env?: Record<string, string> } = {}) => {
    const result = await execa('git', [...NO_HOOKS, ...args], { cwd: options.root, env: { ...env, ...extra.env }, extendEnv: false, reject: false, ...(extra.input !== undefined ? { input: extra.input } : {}), stripFinalNewline: false });
    return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
  };
  const identity = async (): Promise<Record<string, string>> => {
    const name = (await run(['config', 'user.name'])).stdout.trim();
    const email = (await run(['config', 'user.email'])).stdout.trim();
    return {
      GIT_AUTHOR_NAME: name || 'loop-runtime',
      GIT_AUTHOR_EMAIL: email || 'loop-runtime@localhost',
      GIT_COMMITTER_NAME: name || 'loop-runtime',
      GIT_COMMITTER_EMAIL: email || 'loop-runtime@localhost',
    };
  };
  return {
    run,
    /** A file's text at a commit, or null when it is not there. */
    async show(commit: string, path: string): Promise<string | null> {
      const result = await run(['cat-file', 'blob', `${commit}:${path}`]);
      return result.exitCode === 0 ? result.stdout : null;
    },
    async catBlob(sha: string): Promise<string | null> {
      const result = await run(['cat-file', 'blob', sha]);
      return result.exitCode === 0 ? result.stdout : null;
    },
    /** The blob id of a path in HEAD, or null (untracked, no commits). */
    async blobAtHead(path: string): Promise<string | null> {
      const result = await run(['rev-parse', '--verify', '--quiet', `HEAD:${path}`]);
      return result.exitCode === 0 ? result.stdout.trim() || null : null;
    },
    /** A commit with `contents` on top of `parent` (or a root commit); returns `parent` when nothing changed. */
    async commitFiles(parent: string | null, contents: ReadonlyMap<string, string>, message: string): Promise<string> {
      const indexPath = resolve(options.root, (await run(['rev-parse', '--git-path', `loop-runtime-state-${process.pid}.index`])).stdout.trim());
      const indexEnv = { GIT_INDEX_FILE: indexPath };
      try {
        const read = await run(parent ? ['read-tree', parent] : ['read-tree', '--empty'], { env: indexEnv });
        if (read.exitCode !== 0) throw new Error(read.stderr);
        for (const [path, text] of contents) {
          const blob = (await run(['hash-object', '-w', '--stdin'], { input: text })).stdout.trim();
          const added = await run(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], { env: indexEnv });
          if (added.exitCode !== 0) throw new Error(added.stderr);
        }
        const tree = (await run(['write-tree'], { env: indexEnv })).stdout.trim();
        if (parent && (await run(['rev-parse', `${parent}^{tree}`])).stdout.trim() === tree) return parent;
        const committed = await run(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], { env: await identity() });
        if (committed.exitCode !== 0) throw new Error(committed.stderr);
        return committed.stdout.trim();
      } catch (error) {
        throw new LoopRuntimeError('STATE_FAILED', `Could not build the state commit: ${(error as Error).message.trim()}`, { cause: error, fix: 'check that the repository is not corrupt (`git fsck`).' });
      } finally {
        await rm(indexPath, { force: true });
      }
    },
    async push(remote: string, commit: string, branch: string): Promise<{ ok: true } | { ok: false; rejected: boolean; message: string }> {
      const result = await run(['push', '--quiet', '--porcelain', remote, `${commit}:refs/heads/${branch}`]);
      if (result.exitCode === 0) return { ok: true };
      const text = `${result.stdout}\n${result.stderr}`;
      const rejected = /non-fast-forward|fetch first|rejected|stale info|cannot lock ref|failed to update ref|incorrect old value/i.test(text);
      return { ok: false, rejected, message: text.trim().split('\n').slice(-3).join(' ') };
    },
  };
}

