/**
 * A whole number with en-US digit grouping, exactly as
 * `value.toLocaleString('en-US')` writes it, without Intl: the first
 * toLocaleString call in a process loads ICU's locale data, which costs a
 * CLI command like `plan` or `status` more than all of its own work.
 * Anything but a safe integer goes to toLocaleString unchanged.
 *
 * @example
 * ```ts
 * formatCount(1234567); // → '1,234,567'
 * formatCount(-950);    // → '-950'
 * ```
 */
export function formatCount(value: number): string {
  if (!Number.isSafeInteger(value) || Object.is(value, -0)) return value.toLocaleString('en-US');
  const grouped = Math.abs(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return value < 0 ? `-${grouped}` : grouped;
}
