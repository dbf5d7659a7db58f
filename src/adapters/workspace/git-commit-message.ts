/**
 * A commit message as `git commit --cleanup=whitespace` records it (git's `stripspace` without comment
 * stripping): trailing whitespace cut from every line, leading and trailing blank lines dropped, each run of
 * blank lines made one, a final newline. GitWorkspace writes its commits with `git commit-tree`, which records the
 * message byte for byte, so the message is cleaned here; `git-commit-message.test.ts` holds it to `git stripspace`.
 *
 * @example
 * ```ts
 * stripspace('\n\nfix: x  \n\n\n\nWhy\n\n'); // → 'fix: x\n\nWhy\n'
 * ```
 */
export function stripspace(message: string): string {
  const kept: string[] = [];
  let blankBefore = false;
  for (const line of message.split('\n')) {
    // git's isspace: space, tab, newline, carriage return (not \v or \f).
    const trimmed = line.replace(/[ \t\r]+$/, '');
    if (trimmed === '') {
      blankBefore = true;
      continue;
    }
    if (blankBefore && kept.length > 0) kept.push('');
    blankBefore = false;
    kept.push(trimmed);
  }
  return kept.length === 0 ? '' : `${kept.join('\n')}\n`;
}
