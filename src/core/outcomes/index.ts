export * from './outcome-record.js';
export * from './loop-metrics.js';
export * from './autonomy.js';
