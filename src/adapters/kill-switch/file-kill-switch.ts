/** Alias module: the kill switch lives in kill-switch.ts. */
export { FileKillSwitch, loopPauseFile } from './kill-switch.js';
export { MemoryKillSwitch } from './memory-kill-switch.js';
export type { FileKillSwitchOptions, PauseSource } from './kill-switch.js';
