/** The tools a role gets. Read-only roles get no write tools at all; run_command needs execute permission and a runner. */
import type { RolePermissions } from '../../src/core/ports/index.js';
import { globTool, grepTool, listTool, readFileTool } from './read-tools.js';
import type { WorkspaceTool } from './tool-types.js';
import { doneTool, editFileTool, runCommandTool, writeFileTool } from './write-tools.js';

/**
 * @example
 * ```ts
 * toolsForRole({ write: false, execute: false }, false).map((t) => t.definition.name);
 * // ['read_file', 'list', 'glob', 'grep', 'done']
 * ```
 */
export function toolsForRole(permissions: RolePermissions, hasCommandRunner: boolean): WorkspaceTool[] {
  const tools: WorkspaceTool[] = [readFileTool, listTool, globTool, grepTool];
  if (permissions.write) tools.push(writeFileTool, editFileTool);
  if (permissions.execute && hasCommandRunner) tools.push(runCommandTool);
  tools.push(doneTool);
  return tools;
}
