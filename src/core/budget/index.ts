export { BudgetBreaker } from './budget-breaker.js';
export type { BudgetBreakerOptions, BudgetState, BudgetStatus, ReconciledReservation, Reservation, ReserveResult } from './budget-breaker.js';
export { nextUtcMidnight, utcDay } from './utc-day.js';
