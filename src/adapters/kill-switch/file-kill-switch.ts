/** Alias module: the kill switch lives in kill-switch.ts. */
export { FileKillSwitch, MemoryKillSwitch } from './kill-switch.js';
export type { FileKillSwitchOptions } from './kill-switch.js';
