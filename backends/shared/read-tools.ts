/** Read-only workspace tools: read_file (paged), list, glob, grep. */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { minimatch } from 'minimatch';
import { resolveInside, secretPathReason } from './path-guard.js';
import { failure, numberArgument, stringArgument, type WorkspaceTool } from './tool-types.js';

const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules']);
const MAX_WALK_ENTRIES = 20_000;
const MAX_LISTED = 500;
const MAX_LINE_CHARACTERS = 2000;

/** Every file under `start` (relative to `root`, `/`-separated), symlinks not followed. */
export async function walkFiles(root: string, start: string): Promise<{ files: string[]; truncated: boolean }> {
  const files: string[] = [];
  const queue = [start];
  let seen = 0;
  while (queue.length > 0) {
    const directory = queue.shift()!;
    let entries;
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (++seen > MAX_WALK_ENTRIES) return { files, truncated: true };
      const absolute = path.join(directory, entry.name);
      const relative = path.relative(root, absolute).split(path.sep).join('/');
      // Secret files and directories are never walked: grep would print their values.
      if (secretPathReason(relative)) continue;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) queue.push(absolute);
      } else if (entry.isFile()) {
        files.push(relative);
      }
    }
  }
  return { files, truncated: false };
}

function isBinary(buffer: Buffer): boolean {
  return buffer.subarray(0, 8000).includes(0);
}

export const readFileTool: WorkspaceTool = {
  kind: 'read',
  definition: {
    name: 'read_file',
    description: 'Read a text file in the workspace, with line numbers. Large files are paged: pass offset (1-based line) and limit.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Path relative to the workspace root.' },
        offset: { type: 'integer', description: 'First line to read (1-based). Default 1.' },
        limit: { type: 'integer', description: 'Number of lines. Default 400, at most 2000.' },
      },
      required: ['path'],
    },
  },
  async run(args, context) {
    const requested = stringArgument(args, 'path');
    if (!requested) return failure('"path" is required.');
    const guarded = await resolveInside(context.root, requested);
    if (!guarded.ok) return failure(guarded.message);
    const secret = secretPathReason(guarded.relative) ?? secretPathReason(guarded.real);
    if (secret) return failure(secret);
    let buffer: Buffer;
    try {
      buffer = await readFile(guarded.absolute);
    } catch (error) {
      return failure(`cannot read ${guarded.relative}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    if (isBinary(buffer)) return failure(`${guarded.relative} is a binary file.`);
    const lines = buffer.toString('utf8').split('\n');
    const offset = Math.max(1, Math.floor(numberArgument(args, 'offset') ?? 1));
    const limit = Math.min(2000, Math.max(1, Math.floor(numberArgument(args, 'limit') ?? 400)));
    const slice = lines.slice(offset - 1, offset - 1 + limit);
    const body = slice
      .map((line, index) => `${String(offset + index).padStart(6)}\t${line.length > MAX_LINE_CHARACTERS ? `${line.slice(0, MAX_LINE_CHARACTERS)}…` : line}`)
      .join('\n');
    const last = offset - 1 + slice.length;
    const footer = last < lines.length ? `\n[lines ${offset}-${last} of ${lines.length}; call read_file with offset=${last + 1} for more]` : '';
    return { ok: true, content: `${body}${footer}` };
  },
};

export const listTool: WorkspaceTool = {
  kind: 'read',
  definition: {
    name: 'list',
    description: 'List the entries of a directory in the workspace (directories end with "/").',
    parameters: { type: 'object', properties: { path: { type: 'string', description: 'Directory, default ".".' } } },
  },
  async run(args, context) {
    const guarded = await resolveInside(context.root, stringArgument(args, 'path') ?? '.');
    if (!guarded.ok) return failure(guarded.message);
    try {
      const entries = await readdir(guarded.absolute, { withFileTypes: true });
      const names = entries
        .filter((entry) => entry.name !== '.git')
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .sort();
      const shown = names.slice(0, MAX_LISTED);
      const more = names.length > shown.length ? `\n[${names.length - shown.length} more entries not shown]` : '';
      return { ok: true, content: shown.length ? `${shown.join('\n')}${more}` : '(empty directory)' };
    } catch (error) {
      return failure(`cannot list ${guarded.relative}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  },
};

export const globTool: WorkspaceTool = {
  kind: 'read',
  definition: {
    name: 'glob',
    description: 'Find files whose workspace-relative path matches a glob pattern, e.g. "src/**/*.ts".',
    parameters: {
      type: 'object',
      properties: { pattern: { type: 'string' }, path: { type: 'string', description: 'Directory to search, default ".".' } },
      required: ['pattern'],
    },
  },
  async run(args, context) {
    const pattern = stringArgument(args, 'pattern');
    if (!pattern) return failure('"pattern" is required.');
    const guarded = await resolveInside(context.root, stringArgument(args, 'path') ?? '.');
    if (!guarded.ok) return failure(guarded.message);
    const { files, truncated } = await walkFiles(context.root, guarded.absolute);
    const base = guarded.relative === '.' ? '' : `${guarded.relative}/`;
    const matches = files.filter((file) => minimatch(file.slice(base.length), pattern, { dot: true }) || minimatch(file, pattern, { dot: true }));
    const shown = matches.slice(0, MAX_LISTED);
    const notes = [
      matches.length > shown.length ? `[${matches.length - shown.length} more matches not shown]` : '',
      truncated ? '[search stopped early: too many files]' : '',
    ].filter(Boolean);
    return { ok: true, content: shown.length ? [...shown, ...notes].join('\n') : 'No files match.' };
  },
};

export const grepTool: WorkspaceTool = {
  kind: 'read',
  definition: {
    name: 'grep',
    description: 'Search file contents with a JavaScript regular expression. Returns "path:line: text".',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        path: { type: 'string', description: 'Directory or file to search, default ".".' },
        glob: { type: 'string', description: 'Only files matching this glob, e.g. "**/*.ts".' },
        ignoreCase: { type: 'boolean' },
      },
      required: ['pattern'],
    },
  },
  async run(args, context) {
    const source = stringArgument(args, 'pattern');
    if (!source) return failure('"pattern" is required.');
    let regex: RegExp;
    try {
      regex = new RegExp(source, args['ignoreCase'] === true ? 'i' : '');
    } catch (error) {
      return failure(`invalid regular expression: ${(error as Error).message}`);
    }
    const guarded = await resolveInside(context.root, stringArgument(args, 'path') ?? '.');
    if (!guarded.ok) return failure(guarded.message);
    const secret = secretPathReason(guarded.relative) ?? secretPathReason(guarded.real);
    if (secret) return failure(secret);
    const info = await stat(guarded.absolute).catch(() => null);
    if (!info) return failure(`${guarded.relative} does not exist.`);
    const files = info.isFile() ? [guarded.relative] : (await walkFiles(context.root, guarded.absolute)).files;
    const only = stringArgument(args, 'glob');
    const results: string[] = [];
    for (const file of files) {
      if (only && !minimatch(file, only, { dot: true, matchBase: !only.includes('/') })) continue;
      const buffer = await readFile(path.join(context.root, file)).catch(() => null);
      if (!buffer || buffer.length > 1_000_000 || isBinary(buffer)) continue;
      const lines = buffer.toString('utf8').split('\n');
      for (let index = 0; index < lines.length; index++) {
        if (regex.test(lines[index]!)) {
          results.push(`${file}:${index + 1}: ${lines[index]!.slice(0, 300)}`);
          if (results.length >= 200) return { ok: true, content: `${results.join('\n')}\n[stopped at 200 matches]` };
        }
      }
    }
    return { ok: true, content: results.length ? results.join('\n') : 'No matches.' };
  },
};
