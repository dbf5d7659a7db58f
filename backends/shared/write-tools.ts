/** Tools that change the workspace (write_file, edit_file) or run commands (run_command), and "done". */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveInside } from './path-guard.js';
import { failure, numberArgument, stringArgument, type WorkspaceTool } from './tool-types.js';

export const writeFileTool: WorkspaceTool = {
  kind: 'write',
  definition: {
    name: 'write_file',
    description: 'Create or overwrite a file in the workspace with the given content. Parent directories are created.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
  async run(args, context) {
    if (!context.permissions.write) return failure('this role may not write files.');
    const requested = stringArgument(args, 'path');
    const content = stringArgument(args, 'content');
    if (!requested || content === undefined) return failure('"path" and "content" are required.');
    const guarded = await resolveInside(context.root, requested);
    if (!guarded.ok) return failure(guarded.message);
    try {
      await mkdir(path.dirname(guarded.absolute), { recursive: true });
      await writeFile(guarded.absolute, content);
    } catch (error) {
      return failure(`cannot write ${guarded.relative}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    return { ok: true, content: `Wrote ${guarded.relative} (${Buffer.byteLength(content)} bytes).`, wrote: [guarded.relative] };
  },
};

export const editFileTool: WorkspaceTool = {
  kind: 'write',
  definition: {
    name: 'edit_file',
    description:
      'Replace an exact string in a file. old_string must match exactly once (include surrounding lines to make it unique) unless replace_all is true.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        old_string: { type: 'string' },
        new_string: { type: 'string' },
        replace_all: { type: 'boolean' },
      },
      required: ['path', 'old_string', 'new_string'],
    },
  },
  async run(args, context) {
    if (!context.permissions.write) return failure('this role may not write files.');
    const requested = stringArgument(args, 'path');
    const oldString = stringArgument(args, 'old_string');
    const newString = stringArgument(args, 'new_string');
    if (!requested || oldString === undefined || newString === undefined) return failure('"path", "old_string" and "new_string" are required.');
    if (oldString === '') return failure('old_string is empty; use write_file to create a file.');
    if (oldString === newString) return failure('old_string and new_string are identical; nothing would change.');
    const guarded = await resolveInside(context.root, requested);
    if (!guarded.ok) return failure(guarded.message);
    let text: string;
    try {
      text = await readFile(guarded.absolute, 'utf8');
    } catch (error) {
      return failure(`cannot read ${guarded.relative}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    const occurrences = text.split(oldString).length - 1;
    if (occurrences === 0) return failure(`old_string was not found in ${guarded.relative}. Read the file and copy the text exactly.`);
    if (occurrences > 1 && args['replace_all'] !== true) {
      return failure(`old_string occurs ${occurrences} times in ${guarded.relative}; add surrounding lines to make it unique, or set replace_all.`);
    }
    const updated = args['replace_all'] === true ? text.split(oldString).join(newString) : text.replace(oldString, () => newString);
    await writeFile(guarded.absolute, updated);
    return { ok: true, content: `Edited ${guarded.relative} (${occurrences} replacement${occurrences === 1 ? '' : 's'}).`, wrote: [guarded.relative] };
  },
};

const MAX_COMMAND_OUTPUT = 12_000;

export const runCommandTool: WorkspaceTool = {
  kind: 'execute',
  definition: {
    name: 'run_command',
    description: 'Run a shell command (sh -c) in the workspace, sandboxed. Returns the exit code and the tail of the output.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string' }, timeoutMs: { type: 'integer', description: 'Timeout in ms.' } },
      required: ['command'],
    },
  },
  async run(args, context) {
    if (!context.permissions.execute) return failure('this role may not run commands.');
    if (!context.commands) return failure('no command runner is available in this run.');
    const command = stringArgument(args, 'command');
    if (!command || command.trim() === '') return failure('"command" is required.');
    const timeoutMs = Math.min(context.commandTimeoutMs, Math.max(1000, numberArgument(args, 'timeoutMs') ?? context.commandTimeoutMs));
    const evidence = await context.commands.run(
      { command, timeoutMs },
      { cwd: context.root, timeoutMs, ...(context.signal ? { signal: context.signal } : {}) },
    );
    const status = evidence.timedOut ? `timed out after ${timeoutMs} ms` : `exit code ${evidence.exitCode ?? 'none'}${evidence.signal ? `, signal ${evidence.signal}` : ''}`;
    const output = evidence.output.length > MAX_COMMAND_OUTPUT ? `…${evidence.output.slice(-MAX_COMMAND_OUTPUT)}` : evidence.output;
    const ok = evidence.exitCode === 0 && !evidence.timedOut;
    return { ok, content: `${status}\n${output}`, executed: command };
  },
};

export const doneTool: WorkspaceTool = {
  kind: 'control',
  definition: {
    name: 'done',
    description: 'Signal that you are finished. Put your final answer in "result".',
    parameters: {
      type: 'object',
      properties: { result: { type: 'string', description: 'Your final answer in the format your role asks for.' } },
      required: ['result'],
    },
  },
  async run(args) {
    return { ok: true, content: stringArgument(args, 'result') ?? '' };
  },
};
