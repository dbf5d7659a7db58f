/**
 * The composition root, checked from the sources (TypeScript's parser, not a regex): which files construct an
 * adapter class, and which production files import the test doubles. `test/composition-root.test.ts` runs these
 * over the real tree and over hostile snippets that show each rule bites.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';

/** Files that may construct adapters: the root itself, adapters composing their own internals, agent backends
 *  composing theirs, and the test doubles. */
export const ROOT_FILES: readonly RegExp[] = [
  /^src\/composition\//,
  /^src\/adapters\//,
  /^backends\//,
  /^src\/testing\//,
];

export interface SourceFile { path: string; text: string }

export interface Violation { file: string; line: number; rule: 'adapter-outside-root' | 'production-imports-testing'; detail: string }

/** Every .ts source under the given folders (relative to root), tests excluded. */
export function productionSources(root: string, folders: readonly string[]): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name)) out.push({ path, text: readFileSync(join(root, path), 'utf8') });
    }
  };
  for (const folder of folders) walk(folder);
  return out;
}

function parse(file: SourceFile): ts.SourceFile {
  return ts.createSourceFile(file.path, file.text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
}

/** Names of the classes declared (exported) by files under src/adapters/; error classes are not adapters. */
export function adapterClasses(files: readonly SourceFile[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    if (!file.path.startsWith('src/adapters/')) continue;
    parse(file).forEachChild((node) => {
      if (ts.isClassDeclaration(node) && node.name && !node.name.text.endsWith('Error') && node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) names.add(node.name.text);
    });
  }
  return names;
}

function specifiers(source: ts.SourceFile): Array<{ spec: string; node: ts.Node }> {
  const found: Array<{ spec: string; node: ts.Node }> = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ spec: node.moduleSpecifier.text, node });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      found.push({ spec: node.arguments[0].text, node });
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

function constructedName(expression: ts.Expression): string | null {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return expression.name.text;
  if (ts.isParenthesizedExpression(expression)) return constructedName(expression.expression);
  return null;
}

/** Both rules over a set of sources; `classes` are the adapter class names (from `adapterClasses`). */
export function compositionViolations(files: readonly SourceFile[], classes: ReadonlySet<string>): Violation[] {
  const violations: Violation[] = [];
  for (const file of files) {
    const source = parse(file);
    const line = (node: ts.Node): number => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    if (!file.path.startsWith('src/testing/')) {
      for (const { spec, node } of specifiers(source)) {
        if (!spec.startsWith('.')) continue;
        const target = posix.normalize(posix.join(posix.dirname(file.path), spec));
        if (target.startsWith('src/testing/') || target === 'src/testing') {
          violations.push({ file: file.path, line: line(node), rule: 'production-imports-testing', detail: spec });
        }
      }
    }
    if (ROOT_FILES.some((pattern) => pattern.test(file.path))) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node)) {
        const name = constructedName(node.expression);
        if (name && classes.has(name)) violations.push({ file: file.path, line: line(node), rule: 'adapter-outside-root', detail: `new ${name}` });
      }
      node.forEachChild(visit);
    };
    visit(source);
  }
  return violations;
}

export function describeViolation(violation: Violation, root: string): string {
  const where = `${relative(root, join(root, violation.file))}:${violation.line}`;
  return violation.rule === 'adapter-outside-root'
    ? `${where} ${violation.detail}: an adapter is constructed outside the composition root. To fix: take the port or store as a parameter and let src/composition (openRuntime, createLoopRuntime, the store factories) construct it.`
    : `${where} imports ${violation.detail}: production code imports the test doubles. To fix: move what it needs into production (e.g. src/replay) and let src/testing re-export it.`;
}
