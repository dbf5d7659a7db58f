export { BudgetBreaker } from './budget-breaker.js';
export type { BudgetBreakerOptions, BudgetState, BudgetStatus, Reservation, ReserveResult } from './budget-breaker.js';
export { MemoryBudgetLedger } from './memory-budget-ledger.js';
export { OverlayBudgetLedger } from './overlay-budget-ledger.js';
export { nextUtcMidnight, utcDay } from './utc-day.js';
