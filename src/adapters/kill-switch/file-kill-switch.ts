/** Alias module: the kill switch lives in kill-switch.ts. */
export { FileKillSwitch, MemoryKillSwitch, loopPauseFile } from './kill-switch.js';
export type { FileKillSwitchOptions, PauseSource } from './kill-switch.js';
