/**
 * The composition root, checked from the sources (TypeScript's parser, not a regex): which files construct an
 * adapter class, which call an adapter factory, and which production files import the test doubles.
 * `test/composition-root.test.ts` runs these over the real tree and over hostile snippets that show each rule bites.
 *
 * What counts as an adapter FACTORY (decided from declarations, so the rule is exact and needs no type checker):
 * a function or const exported from a file under src/adapters/ whose declared type says it makes an adapter —
 *   - its declared return type (a const: its type annotation, or its arrow's return type), with `Promise<…>`,
 *     `| null` and `&` looked through, names a port (an interface exported from src/core/ports/ that declares a
 *     method, or a function type: `Clock`, `CommandRunner`, `Notifier`, `BaselineCache`, `EngineObserver`, …) or an adapter class
 *     (`adapterClasses`); e.g. `systemClock: Clock`, `fileClock(): Clock`, `createSandboxedRunner(): Promise<CommandRunner>`;
 *   - or, undeclared, its name says so: `create<Role>` / `open<Role>` where Role ends in a port word (Runner,
 *     Store, Sandbox, Ledger, Leases, Backend, Workspace, Delivery, Notifier, Clock), e.g. `createAgentSandbox`.
 * Helpers that return data or plain functions are not factories (`stateFilesFor(): StateFile[]`, `git(): GitRunner`,
 * `readTextOrNull`, `pullState(): Promise<StateSyncResult>`): they are used, not wired. A file outside the root that
 * USES a factory it imported from src/adapters/ — a call, or a reference to a factory value such as `systemClock`,
 * through a static import, a destructured `await import(…)` (also inside `Promise.all([...])`) or
 * `(await import(…)).name` — is reported; the same name declared locally, or imported from src/composition, is not.
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

export interface Violation { file: string; line: number; rule: 'adapter-outside-root' | 'factory-outside-root' | 'production-imports-testing'; detail: string }

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

/** Port names: interfaces exported from src/core/ports/ that declare at least one method, and exported function types
 *  (`EngineObserver`). */
export function portInterfaces(files: readonly SourceFile[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    if (!file.path.startsWith('src/core/ports/')) continue;
    parse(file).forEachChild((node) => {
      if (!(ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) || !node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return;
      if (ts.isTypeAliasDeclaration(node)) {
        if (ts.isFunctionTypeNode(node.type)) names.add(node.name.text);
        return;
      }
      const hasMethod = node.members.some((member) => ts.isMethodSignature(member) || ts.isCallSignatureDeclaration(member) || (ts.isPropertySignature(member) && member.type !== undefined && ts.isFunctionTypeNode(member.type)));
      if (hasMethod) names.add(node.name.text);
    });
  }
  return names;
}

const FACTORY_NAME = /^(create|open)[A-Z]\w*(Runner|Store|Sandbox|Ledger|Leases|Backend|Workspace|Delivery|Notifier|Clock)$/;

/** The type names a declared type makes, looking through Promise<…>, unions and intersections. */
function madeTypes(type: ts.TypeNode | undefined): string[] {
  if (!type) return [];
  if (ts.isUnionTypeNode(type) || ts.isIntersectionTypeNode(type)) return type.types.flatMap(madeTypes);
  if (ts.isParenthesizedTypeNode(type)) return madeTypes(type.type);
  if (ts.isTypeReferenceNode(type)) {
    const name = ts.isIdentifier(type.typeName) ? type.typeName.text : type.typeName.right.text;
    return name === 'Promise' ? madeTypes(type.typeArguments?.[0]) : [name];
  }
  return [];
}

/** Adapter factories by module (`src/adapters/clock/system-clock`, no extension) → exported names; see the header. */
export function adapterFactories(files: readonly SourceFile[], classes: ReadonlySet<string>, ports: ReadonlySet<string>): Map<string, Set<string>> {
  const factories = new Map<string, Set<string>>();
  const makesAdapter = (name: string, type: ts.TypeNode | undefined): boolean => {
    const made = madeTypes(type);
    return made.length > 0 ? made.some((made) => ports.has(made) || classes.has(made)) : FACTORY_NAME.test(name);
  };
  for (const file of files) {
    if (!file.path.startsWith('src/adapters/')) continue;
    const found = new Set<string>();
    parse(file).forEachChild((node) => {
      if (!ts.canHaveModifiers(node) || !ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return;
      if (ts.isFunctionDeclaration(node) && node.name && makesAdapter(node.name.text, node.type)) found.add(node.name.text);
      if (ts.isVariableStatement(node)) {
        for (const declaration of node.declarationList.declarations) {
          if (!ts.isIdentifier(declaration.name)) continue;
          const initializer = declaration.initializer;
          const type = declaration.type ?? (initializer && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer)) ? initializer.type : undefined);
          if (makesAdapter(declaration.name.text, type)) found.add(declaration.name.text);
        }
      }
    });
    if (found.size > 0) factories.set(file.path.replace(/\.tsx?$/, ''), found);
  }
  return factories;
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

/** Every rule over a set of sources; `classes` are the adapter class names (from `adapterClasses`), `factories` the
 *  adapter factories (from `adapterFactories`; none given: that rule is not checked). */
export function compositionViolations(files: readonly SourceFile[], classes: ReadonlySet<string>, factories: ReadonlyMap<string, ReadonlySet<string>> = new Map()): Violation[] {
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
    for (const use of factoryUses(source, file.path, factories)) violations.push({ file: file.path, line: line(use.node), rule: 'factory-outside-root', detail: use.name });
  }
  return violations;
}

/** The module a relative specifier names, as `src/…/name` without extension; null when not relative. */
function moduleOf(from: string, spec: string): string | null {
  return spec.startsWith('.') ? posix.normalize(posix.join(posix.dirname(from), spec)).replace(/\.(js|ts)$/, '') : null;
}

function importedModule(expression: ts.Expression, from: string): string | null {
  let node = expression;
  while (ts.isAwaitExpression(node) || ts.isParenthesizedExpression(node)) node = node.expression;
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) return moduleOf(from, node.arguments[0].text);
  return null;
}

/** Uses of imported adapter factories: calls and value references, each with the name the factory is exported as. */
function factoryUses(source: ts.SourceFile, path: string, factories: ReadonlyMap<string, ReadonlySet<string>>): Array<{ node: ts.Node; name: string }> {
  if (factories.size === 0) return [];
  const locals = new Map<string, string>();
  const bind = (pattern: ts.BindingName, module: string | null): void => {
    const exported = module ? factories.get(module) : undefined;
    if (!exported || !ts.isObjectBindingPattern(pattern)) return;
    for (const element of pattern.elements) {
      const name = element.propertyName && ts.isIdentifier(element.propertyName) ? element.propertyName.text : ts.isIdentifier(element.name) ? element.name.text : null;
      if (name && exported.has(name) && ts.isIdentifier(element.name)) locals.set(element.name.text, name);
    }
  };
  const uses: Array<{ node: ts.Node; name: string }> = [];
  const collect = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.importClause?.namedBindings && ts.isNamedImports(node.importClause.namedBindings)) {
      const exported = factories.get(moduleOf(path, node.moduleSpecifier.text) ?? '');
      for (const element of node.importClause.namedBindings.elements) {
        const name = (element.propertyName ?? element.name).text;
        if (exported?.has(name) && !element.isTypeOnly && !node.importClause.isTypeOnly) locals.set(element.name.text, name);
      }
    } else if (ts.isVariableDeclaration(node) && node.initializer) {
      let initializer: ts.Expression = node.initializer;
      while (ts.isAwaitExpression(initializer) || ts.isParenthesizedExpression(initializer)) initializer = initializer.expression;
      if (ts.isArrayBindingPattern(node.name) && ts.isCallExpression(initializer) && ts.isPropertyAccessExpression(initializer.expression) && initializer.expression.name.text === 'all' && initializer.arguments[0] && ts.isArrayLiteralExpression(initializer.arguments[0])) {
        const imports = initializer.arguments[0].elements;
        node.name.elements.forEach((element, index) => {
          const imported = imports[index];
          if (ts.isBindingElement(element) && imported) bind(element.name, importedModule(imported, path));
        });
      } else bind(node.name, importedModule(node.initializer, path));
    } else if (ts.isPropertyAccessExpression(node)) {
      const module = importedModule(node.expression, path);
      if (module && factories.get(module)?.has(node.name.text)) uses.push({ node, name: node.name.text });
    }
    node.forEachChild(collect);
  };
  collect(source);
  if (locals.size === 0) return uses.sort((a, b) => a.node.pos - b.node.pos);
  const isDeclarationName = (node: ts.Identifier): boolean => {
    const parent = node.parent;
    return ts.isImportSpecifier(parent) || ts.isBindingElement(parent) || (ts.isPropertyAccessExpression(parent) && parent.name === node) || (ts.isPropertyAssignment(parent) && parent.name === node) || ts.isPropertySignature(parent) || ts.isTypeReferenceNode(parent) || ts.isQualifiedName(parent);
  };
  const references = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && locals.has(node.text) && !isDeclarationName(node)) uses.push({ node, name: locals.get(node.text)! });
    node.forEachChild(references);
  };
  references(source);
  return uses.sort((a, b) => a.node.pos - b.node.pos);
}

export function describeViolation(violation: Violation, root: string): string {
  const where = `${relative(root, join(root, violation.file))}:${violation.line}`;
  if (violation.rule === 'factory-outside-root') return `${where} ${violation.detail}: an adapter factory is used outside the composition root. To fix: take the port as a parameter, or call the root's function for it (src/composition: openRuntime, clockFor, the *For factories), which makes it.`;
  return violation.rule === 'adapter-outside-root'
    ? `${where} ${violation.detail}: an adapter is constructed outside the composition root. To fix: take the port or store as a parameter and let src/composition (openRuntime, createLoopRuntime, the store factories) construct it.`
    : `${where} imports ${violation.detail}: production code imports the test doubles. To fix: move what it needs into production (e.g. src/replay) and let src/testing re-export it.`;
}
