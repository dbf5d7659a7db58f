/**
 * Where a loop's level lives: the LOOP.md front matter the user owns, edited
 * in place through the yaml Document API so comments, key order and the
 * markdown body stay as they were. The most specific file wins:
 * `loops/<id>/LOOP.md` (`loop-runtime.level`) when it exists, else the root
 * LOOP.md (`loop-runtime.loops.<id>.level`), created with only front matter
 * when missing. The edited text is validated with the same loader before it
 * is written; a file that would not load again is never written.
 */
import { join } from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { loadLoopMd, splitFrontMatter } from '../../core/config/load-loop-md.js';
import type { Level } from '../../core/config/schemas.js';
import { LoopRuntimeError } from '../../core/errors.js';
import { readTextOrNull, updateFileAtomically } from '../fs/atomic-file.js';

/** Returns the edited LOOP.md text with `level` set at `path`; pure. */
export function setLevelInLoopMd(text: string | null, path: readonly string[], level: Level, file: string): string {
  const source = text ?? '';
  const split = splitFrontMatter(source);
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  const document = parseDocument(split.yaml ?? '');
  if (document.errors.length > 0) {
    throw new LoopRuntimeError('CONFIG_INVALID', `${file}: its front matter is not valid YAML (${document.errors[0]!.message}), so the level cannot be written.`, { fix: `repair the front matter of ${file}, then run the command again.` });
  }
  if (document.contents !== null && !isMap(document.contents)) {
    throw new LoopRuntimeError('CONFIG_INVALID', `${file}: its front matter is not a mapping, so the level cannot be written.`, { fix: `make the front matter of ${file} a YAML mapping.` });
  }
  document.setIn(path, level);
  const yamlText = document.toString({ lineWidth: 0 }).replace(/\n/g, eol);
  if (split.yaml === null) return `---${eol}${yamlText}---${eol}${source ? `${eol}${source}` : ''}`;
  const lines = source.replace(/^\uFEFF/, '').split(/\r?\n/);
  const body = lines.slice(split.closingLine).join(eol);
  const closing = lines[split.closingLine - 1] ?? '---';
  return `---${eol}${yamlText}${closing}${eol}${body}`;
}

/** Writes the level of loop `id` into the LOOP.md that should hold it; returns the file (relative). */
export async function writeLoopLevel(root: string, id: string, level: Level): Promise<string> {
  const perLoop = `loops/${id}/LOOP.md`;
  const hasPerLoop = (await readTextOrNull(join(root, perLoop))) !== null;
  const file = hasPerLoop ? perLoop : 'LOOP.md';
  const path = hasPerLoop ? ['loop-runtime', 'level'] : ['loop-runtime', 'loops', id, 'level'];
  await updateFileAtomically(join(root, file), (old) => {
    const next = setLevelInLoopMd(old, path, level, file);
    const loaded = loadLoopMd(next, file);
    if (!loaded.ok) {
      const issue = loaded.issues[0]!;
      throw new LoopRuntimeError('CONFIG_INVALID', `${file}:${issue.line}: setting the level would leave ${issue.path} invalid: ${issue.message}`, { fix: issue.fix });
    }
    return next;
  });
  return file;
}
