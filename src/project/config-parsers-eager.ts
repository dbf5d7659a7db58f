/** The parsers `config-parsers.ts` imports on first use (one chunk: yaml, zod and the loaders). */
export { loadGate } from '../core/config/load-gate.js';
export { loadLedger } from '../core/config/load-ledger.js';
export { loadLoopMd } from '../core/config/load-loop-md.js';
export { loadRegistry } from '../core/config/load-registry.js';
