/**
 * Rust keeps its unit tests inside the source (`#[cfg(test)] mod tests`, `#[test]` fns in `src/*.rs`), so the
 * base's tests cannot be put back as whole files. Instead a file is rebuilt from the change's code and the base's
 * test items: every test item of the change is cut out, and the base's are put where they were (at the end of
 * the same module — item order means nothing to rustc). Parsed with tree-sitter's Rust grammar (WebAssembly, no
 * native build), loaded on first use.
 */
import { createRequire } from 'node:module';
import type { Node as SyntaxNode, Parser as TreeSitterParser } from 'web-tree-sitter';

/** `#[test]`, `#[tokio::test]`, `#[test_case(…)]`, `#[rstest]`, `#[cfg(test)]`, `#[cfg(all(test, …))]`. */
const TEST_ATTRIBUTE = /^#\s*\[\s*(?:(?:\w+::)*test\b|test_case\b|rstest\b|cfg\s*\((?:[^\]]*[(,\s])?test\b)/;

let parser: Promise<TreeSitterParser> | null = null;

async function rustParser(): Promise<TreeSitterParser> {
  parser ??= (async () => {
    const { Parser, Language } = await import('web-tree-sitter');
    await Parser.init();
    const language = await Language.load(createRequire(import.meta.url).resolve('tree-sitter-rust/tree-sitter-rust.wasm'));
    const created = new Parser();
    created.setLanguage(language);
    return created;
  })();
  return parser;
}

interface TestItem {
  /** The enclosing inline modules' names, `''` at the file's top level. */
  module: string;
  start: number;
  end: number;
}

/** Test items (with their attributes and doc comments) in `node`'s children, recursing into non-test inline modules. */
function collect(node: SyntaxNode, module: string, found: TestItem[]): void {
  const children = node.namedChildren.filter((child): child is SyntaxNode => child !== null);
  let leading: SyntaxNode[] = [];
  for (const child of children) {
    if (child.type === 'attribute_item' || (child.type === 'line_comment' && child.text.startsWith('///'))) {
      leading.push(child);
      continue;
    }
    const attributes = leading.filter((entry) => entry.type === 'attribute_item');
    const start = leading[0]?.startIndex ?? child.startIndex;
    leading = [];
    if (attributes.some((attribute) => TEST_ATTRIBUTE.test(attribute.text))) {
      found.push({ module, start, end: child.endIndex });
      continue;
    }
    const body = child.type === 'mod_item' ? child.childForFieldName('body') : null;
    if (body) collect(body, `${module}::${child.childForFieldName('name')?.text ?? ''}`, found);
  }
}

/** Where a module's items end: before the `}` of `mod name { … }`, or the end of the file. */
function moduleEnds(root: SyntaxNode): Map<string, number> {
  const ends = new Map<string, number>([['', root.endIndex]]);
  const walk = (node: SyntaxNode, module: string) => {
    for (const child of node.namedChildren) {
      if (child?.type !== 'mod_item') continue;
      const body = child.childForFieldName('body');
      if (!body) continue;
      const name = `${module}::${child.childForFieldName('name')?.text ?? ''}`;
      ends.set(name, body.endIndex - 1);
      walk(body, name);
    }
  };
  walk(root, '');
  return ends;
}

/**
 * The change's file with the base's test items in place of its own.
 *
 * @example
 * ```ts
 * await withBaseTestItems('fn f() -> i32 { 1 }\n#[test]\nfn t() { assert_eq!(f(), 2); }\n', 'fn f() -> i32 { 2 }\n#[test]\nfn t() { assert!(true); }\n');
 * // → 'fn f() -> i32 { 2 }\n\n\n#[test]\nfn t() { assert_eq!(f(), 2); }\n'
 * ```
 */
export async function withBaseTestItems(base: string, change: string): Promise<string> {
  const rust = await rustParser();
  const baseTree = rust.parse(base);
  const changeTree = rust.parse(change);
  if (!baseTree || !changeTree) throw new Error('tree-sitter could not parse the Rust file');
  try {
    const baseItems: TestItem[] = [];
    collect(baseTree.rootNode, '', baseItems);
    const changeItems: TestItem[] = [];
    collect(changeTree.rootNode, '', changeItems);
    const ends = moduleEnds(changeTree.rootNode);
    // Edits from the end backwards, so earlier offsets stay valid: insertions at module ends, removals of the change's tests.
    const edits: Array<{ at: number; end: number; text: string }> = changeItems.map((item) => ({ at: item.start, end: item.end, text: '' }));
    const byModule = new Map<string, string[]>();
    for (const item of baseItems) {
      const module = ends.has(item.module) ? item.module : '';
      byModule.set(module, [...(byModule.get(module) ?? []), base.slice(item.start, item.end)]);
    }
    for (const [module, texts] of byModule) {
      const at = ends.get(module) ?? change.length;
      edits.push({ at, end: at, text: `\n${texts.join('\n\n')}\n` });
    }
    edits.sort((a, b) => b.at - a.at || b.end - a.end);
    let merged = change;
    for (const edit of edits) merged = merged.slice(0, edit.at) + edit.text + merged.slice(edit.end);
    return merged;
  } finally {
    baseTree.delete();
    changeTree.delete();
  }
}
