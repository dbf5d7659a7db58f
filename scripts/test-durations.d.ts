/** Types for scripts/test-durations.js, for its test. */
export function parseFileTimes(text: string): Record<string, number>;
export function mergeDurations(previous: Record<string, number>, fresh: Record<string, number>, exists: (path: string) => boolean): Record<string, number>;
