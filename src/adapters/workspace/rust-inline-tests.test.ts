import { describe, expect, it } from 'vitest';
import { withBaseTestItems } from './rust-inline-tests.js';

const BASE = `//! crate docs — «ünïcode» before the tests
pub fn shout(text: &str) -> String {
    text.to_uppercase()
}

mod inner {
    pub fn two() -> i32 { 2 }

    #[cfg(test)]
    mod inner_tests {
        #[test]
        fn two_is_two() { assert_eq!(super::two(), 2); }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The item's test.
    #[test]
    fn shouts() {
        assert_eq!(shout("hi"), "HI!");
    }
}
`;

describe('withBaseTestItems (tree-sitter Rust)', () => {
  it("keeps the change's code and puts the base's test modules back in their modules, whatever the change did to them", async () => {
    const change = BASE.replace('text.to_uppercase()\n', 'text.to_uppercase() + "!"\n')
      .replace('assert_eq!(shout("hi"), "HI!");', 'assert!(true);')
      .replace('fn two_is_two() { assert_eq!(super::two(), 2); }', '#[ignore]\n        fn two_is_two() {}');
    const merged = await withBaseTestItems(BASE, change);
    expect(merged).toContain('text.to_uppercase() + "!"');
    expect(merged).toContain('assert_eq!(shout("hi"), "HI!");');
    expect(merged).not.toContain('assert!(true)');
    expect(merged).not.toContain('#[ignore]');
    expect(merged).toContain('/// The item\'s test.\n    #[test]\n    fn shouts()');
    // The nested module's tests stay inside `mod inner` (they call `super::two()`).
    expect(merged.indexOf('mod inner_tests')).toBeLessThan(merged.indexOf('#[cfg(test)]\nmod tests'));
    expect(merged.indexOf('mod inner_tests')).toBeGreaterThan(merged.indexOf('pub fn two()'));
  });

  it('a test deleted, compiled out or added by the change is replaced by exactly the base\'s tests; no tests at the base means none after', async () => {
    const deleted = BASE.replace(/#\[cfg\(test\)\]\nmod tests \{[\s\S]*$/, '');
    expect(await withBaseTestItems(BASE, deleted)).toContain('fn shouts()');
    const compiledOut = BASE.replace('#[cfg(test)]\nmod tests', '#[cfg(any())]\nmod tests');
    const merged = await withBaseTestItems(BASE, compiledOut);
    // The compiled-out module stays (inert, emptied of its tests); the base's runs.
    expect(merged.match(/fn shouts\(\)/g)).toHaveLength(1);
    expect(merged).toContain('#[cfg(any())]\nmod tests');
    expect(merged).toContain('#[cfg(test)]\nmod tests');
    const plain = 'pub fn a() -> i32 { 1 }\n';
    expect((await withBaseTestItems(plain, `${plain}#[test]\nfn vacuous() { assert!(true); }\n`)).trim()).toBe(plain.trim());
  });
});

describe("the memory twin's withBaseFiles({ testItemsOf })", () => {
  it('runs with the merged file and puts the change back; without restoreTestItems it refuses (fail closed)', async () => {
    const { MemoryWorkspace } = await import('./memory-workspace.js');
    const item = { key: 'k', title: 't' };
    const prepare = async (workspace: InstanceType<typeof MemoryWorkspace>) => {
      const prepared = await workspace.prepare({ tickId: 't', patternId: 'p', item, branchPrefix: 'loop/p/', baseBranch: null });
      if (!prepared.ok) throw new Error(prepared.message);
      const change = BASE.replace('assert_eq!(shout("hi"), "HI!");', 'assert!(true);');
      await workspace.files(prepared.handle).write('src/lib.rs', change);
      return { handle: prepared.handle, change };
    };
    const twin = new MemoryWorkspace({ files: { 'src/lib.rs': BASE }, restoreTestItems: withBaseTestItems });
    const { handle, change } = await prepare(twin);
    const seen = await twin.withBaseFiles(handle, [], () => twin.files(handle).read('src/lib.rs'), { testItemsOf: ['src/lib.rs'] });
    expect(seen.ok && seen.value).toContain('assert_eq!(shout("hi"), "HI!");');
    expect(await twin.files(handle).read('src/lib.rs')).toBe(change);

    const bare = new MemoryWorkspace({ files: { 'src/lib.rs': BASE } });
    const other = await prepare(bare);
    expect(await bare.withBaseFiles(other.handle, [], async () => 'ran', { testItemsOf: ['src/lib.rs'] })).toMatchObject({ ok: false, reason: 'io' });
  });
});
