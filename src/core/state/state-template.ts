/**
 * The fresh state file's text, apart from the code that updates one (state-file.ts re-exports it): loop detection
 * (runtime-owned.ts) compares a file with it on every `list`, `plan` and `validate`, which update no state.
 */

/** The canonical STATE.md the reference describes, used when the file is missing. */
export function freshStateFile(project = 'this project'): string {
  return [
    `# Loop State — ${project}`,
    'Last run: never',
    '## High Priority (loop is acting or waiting on human)',
    '## Watch List',
    '## Recent Noise (ignored this run)',
    '---',
    'Run log: —',
    '',
  ].join('\n');
}
