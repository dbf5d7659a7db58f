/**
 * Refuses to write into a state file or run log that is damaged in a way an
 * edit would bake in or lose: an unresolved merge conflict (a failed `state
 * pull`, a hand merge) or NUL bytes (a binary file under a text name). Pure,
 * so the file writer and its memory twin refuse the same texts.
 */
import { LoopRuntimeError } from '../../core/errors.js';

/**
 * Throws `STATE_FAILED` naming `name:line` when `text` must not be edited.
 *
 * @example
 * ```ts
 * checkStateText(await readFile(path, 'utf8'), 'STATE.md'); // throws on "<<<<<<< HEAD" … ">>>>>>> theirs"
 * ```
 */
export function checkStateText(text: string | null, name: string): void {
  if (text === null) return;
  const lines = text.split('\n');
  const nul = lines.findIndex((line) => line.includes('\u0000'));
  if (nul >= 0) {
    throw new LoopRuntimeError('STATE_FAILED', `${name}:${nul + 1}: the file holds NUL bytes, so it is not a text file loop-runtime can edit without losing bytes.`, {
      fix: `restore ${name} from git (\`git checkout -- ${name}\`) or delete it so a fresh one is written.`,
      detail: { file: name, line: nul + 1 },
    });
  }
  const start = lines.findIndex((line) => /^<{7}(?: |$)/.test(line));
  const end = start >= 0 ? lines.findIndex((line, index) => index > start && /^>{7}(?: |$)/.test(line)) : -1;
  if (start >= 0 && end >= 0) {
    throw new LoopRuntimeError(
      'STATE_FAILED',
      `${name}:${start + 1}: the file holds an unresolved merge conflict (lines ${start + 1}-${end + 1}); loop-runtime writes nothing into it, so neither side is lost.`,
      { fix: `resolve the conflict in ${name} (keep the lines you want, delete the <<<<<<< ======= >>>>>>> markers), then run the loop again.`, detail: { file: name, line: start + 1 } },
    );
  }
}
