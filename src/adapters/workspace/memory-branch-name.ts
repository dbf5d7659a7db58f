/**
 * The memory workspace's branch names: `<prefix><slug of the item key>`.
 */
import { memoByString } from '../../core/text/memo-by-string.js';

export function slugify(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'item'
  );
}

/** A slug per item key, remembered: every tick prepares a workspace for one of the same few items. */
const slugOf = memoByString(slugify);

/**
 * The branch of an item, the same string for the same prefix and key as last time: each kept attempt holds its
 * branch, and a string joined anew per attempt was four more objects for each attempt kept.
 */
export class BranchNames {
  private last: { prefix: string; itemKey: string; branch: string } | null = null;

  of(prefix: string, itemKey: string): string {
    const last = this.last;
    if (last && last.prefix === prefix && last.itemKey === itemKey) return last.branch;
    const branch = `${prefix}${slugOf(itemKey)}`;
    this.last = { prefix, itemKey, branch };
    return branch;
  }
}
