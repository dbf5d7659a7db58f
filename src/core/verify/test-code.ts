/**
 * Tests that live beside the code, and test-runner configuration inside
 * files that are mostly something else: Rust `#[test]` functions and
 * `#[cfg(test)]` modules in `src/*.rs`, Python `test_*` functions and `Test*`
 * classes in any module (pytest collects them wherever `python_files` points),
 * and Cargo.toml's test-shaping sections. An edit to them is a test edit wherever the file is. Pure text
 * rules: an over-wide match escalates to a human, which is the safe side.
 */

const TEST_ATTRIBUTE = /#\[(?:cfg\(test\)|(?:[\w]+::)*test(?:\([^\]]*\))?)\]/g;

/** The end (exclusive) of the item that starts at `from`: its `{ … }` body, skipping strings and line comments. */
function itemEnd(text: string, from: number): number {
  let depth = 0;
  let opened = false;
  for (let index = from; index < text.length; index++) {
    const char = text[index];
    if (char === '/' && text[index + 1] === '/') {
      const newline = text.indexOf('\n', index);
      index = newline === -1 ? text.length : newline;
    } else if (char === '"') {
      for (index++; index < text.length && text[index] !== '"'; index++) if (text[index] === '\\') index++;
    } else if (char === '{') {
      depth += 1;
      opened = true;
    } else if (char === '}') {
      depth -= 1;
      if (opened && depth === 0) return index + 1;
    } else if (char === ';' && !opened) {
      return index + 1; // `#[cfg(test)] mod tests;` — the module is in its own file
    }
  }
  return text.length;
}

/** Where the attribute block that holds `at` starts: attributes and doc comments on the lines above belong to the item. */
function attributesStart(text: string, at: number): number {
  let start = text.lastIndexOf('\n', at - 1) + 1;
  while (start > 0) {
    const previous = text.lastIndexOf('\n', start - 2) + 1;
    const line = text.slice(previous, start - 1).trim();
    if (!(line.startsWith('#[') || line.startsWith('///'))) break;
    start = previous;
  }
  return start;
}

/**
 * The text of every test item in a Rust source file (with its attributes), in order.
 *
 * @example
 * ```ts
 * rustTestItems('fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n');
 * // → ['#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}']
 * ```
 */
export function rustTestItems(text: string): string[] {
  const items: string[] = [];
  let coveredUntil = -1;
  for (const match of text.matchAll(TEST_ATTRIBUTE)) {
    const at = match.index ?? 0;
    if (at < coveredUntil) continue;
    const start = attributesStart(text, at);
    const end = itemEnd(text, at + match[0].length);
    items.push(text.slice(start, end));
    coveredUntil = end;
  }
  return items;
}

/** Whether the test items of a Rust file differ between two versions (a missing version has none). */
export function rustTestCodeChanged(before: string | null, after: string | null): boolean {
  return rustTestItems(before ?? '').join('\n\u0000\n') !== rustTestItems(after ?? '').join('\n\u0000\n');
}

const CARGO_TEST_SECTION = /^\[\[?\s*(?:lib|bin|test|bench|example|profile(?:\.[^\]]+)?|target\.[^\]]+|features)\s*\]\]?$/;
const CARGO_TEST_KEY = /^\s*(?:auto(?:tests|benches|bins|examples|lib)|build)\s*=/;

/**
 * The Cargo.toml sections that decide which tests build and run (`[lib]`, `[[test]]`, `[[bench]]`, `[[bin]]`,
 * `[profile.*]`, `[target.*]`, `[features]`, and `autotests`/`build` in `[package]`) that differ, by name.
 *
 * @example
 * ```ts
 * cargoTestConfigChange('[package]\nname = "a"\n', '[package]\nname = "a"\n\n[lib]\ntest = false\n'); // → ['[lib]']
 * cargoTestConfigChange('[dependencies]\n', '[dependencies]\nserde = "1"\n'); // → []
 * ```
 */
export function cargoTestConfigChange(before: string | null, after: string | null): string[] {
  const sections = (text: string | null): Map<string, string> => {
    const found = new Map<string, string>();
    let header = '';
    for (const raw of (text ?? '').split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trimEnd();
      if (/^\s*\[/.test(line)) {
        header = line.trim();
        continue;
      }
      if (line.trim() === '') continue;
      const key = CARGO_TEST_SECTION.test(header) ? header : header === '[package]' && CARGO_TEST_KEY.test(line) ? '[package] autotests/build' : null;
      if (key) found.set(key, `${found.get(key) ?? ''}${line.trim()}\n`);
      else if (CARGO_TEST_SECTION.test(header)) found.set(header, found.get(header) ?? '');
    }
    return found;
  };
  const old = sections(before);
  const now = sections(after);
  return [...new Set([...old.keys(), ...now.keys()])].filter((key) => old.get(key) !== now.get(key)).sort();
}

/**
 * The text of every top-level Python test function and test class (decorators included), in order: what pytest
 * would collect from the module if its `python_files` matched it.
 *
 * @example
 * ```ts
 * pythonTestItems('def helper():\n    pass\n\n@pytest.mark.skip\ndef test_x():\n    assert helper() is None\n');
 * // → ['@pytest.mark.skip\ndef test_x():\n    assert helper() is None']
 * ```
 */
export function pythonTestItems(text: string): string[] {
  const lines = text.split('\n');
  const items: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (!/^(?:async\s+)?(?:def\s+test|class\s+Test)/.test(lines[index] ?? '')) continue;
    let start = index;
    while (start > 0 && (lines[start - 1] ?? '').startsWith('@')) start -= 1;
    let end = index + 1;
    while (end < lines.length && ((lines[end] ?? '') === '' || /^\s/.test(lines[end] ?? ''))) end += 1;
    while (end > index + 1 && (lines[end - 1] ?? '').trim() === '') end -= 1;
    items.push(lines.slice(start, end).join('\n'));
    index = end - 1;
  }
  return items;
}

/** Whether the Python test items of a module differ between two versions (a missing version has none). */
export function pythonTestCodeChanged(before: string | null, after: string | null): boolean {
  return pythonTestItems(before ?? '').join('\n\u0000\n') !== pythonTestItems(after ?? '').join('\n\u0000\n');
}
