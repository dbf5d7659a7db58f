export { PostgresDatabase, type PostgresDatabaseOptions, type Queryable } from './postgres-database.js';
export { PostgresBudgetLedger, type PostgresBudgetLedgerOptions } from './postgres-budget-ledger.js';
export { PostgresAttemptLedger, type PostgresAttemptLedgerOptions } from './postgres-attempt-ledger.js';
export { PostgresItemLeases, PostgresLoopLeases, type PostgresLeasesOptions, type PostgresLeaseResult } from './postgres-leases.js';
export { PostgresRunHistory, toRunHistoryEntry, type RunHistoryEntry, type RunHistoryQuery } from './postgres-run-history.js';
export { describeDatabase } from './pg-errors.js';
export { PostgresDeliveryLedger } from './postgres-delivery-ledger.js';
export { PostgresKillSwitch, type PostgresKillSwitchOptions } from './postgres-kill-switch.js';
export { PostgresOutcomeStore } from './postgres-outcome-store.js';
