export { BudgetBreaker } from './budget-breaker.js';
export type { BudgetBreakerOptions, BudgetState, BudgetStatus, ReconciledReservation, Reservation, ReserveResult } from './budget-breaker.js';
export { MemoryBudgetLedger } from '../../adapters/budget-ledger/memory-budget-ledger.js';
export { OverlayBudgetLedger } from '../../adapters/budget-ledger/overlay-budget-ledger.js';
export { nextUtcMidnight, utcDay } from './utc-day.js';
