/**
 * Single-use tickets for the SSE stream. `EventSource` cannot send a header,
 * so the page trades its token (in a header, on a GET no other origin can
 * send without a CORS preflight we never answer) for a ticket and opens
 * `/api/events?ticket=…`. The token itself never appears in a URL, where
 * history, proxies and logs keep it; a ticket works once, within a minute.
 *
 * Why not a cookie: a cookie for `localhost` is sent to every port on it, so
 * any other local server the browser visits would receive the session.
 */
import { randomBytes } from 'node:crypto';

export const TICKET_TTL_MS = 60_000;

export interface TicketBook {
  /** A new ticket, valid once for `TICKET_TTL_MS`. */
  issue(): string;
  /** True once per issued, unexpired ticket. */
  redeem(ticket: string | undefined): boolean;
}

/**
 * @example
 * ```ts
 * const tickets = createTicketBook(() => Date.now());
 * const ticket = tickets.issue();
 * tickets.redeem(ticket); // → true
 * tickets.redeem(ticket); // → false (used)
 * ```
 */
export function createTicketBook(now: () => number, ttlMs = TICKET_TTL_MS): TicketBook {
  // A map lookup by a 192-bit random key: timing tells nothing useful about a ticket nobody was given.
  const open = new Map<string, number>();
  const sweep = () => {
    const at = now();
    for (const [ticket, expires] of open) if (expires <= at) open.delete(ticket);
  };
  return {
    issue() {
      sweep();
      const ticket = randomBytes(24).toString('base64url');
      open.set(ticket, now() + ttlMs);
      return ticket;
    },
    redeem(ticket) {
      if (!ticket) return false;
      const expires = open.get(ticket);
      open.delete(ticket);
      return expires !== undefined && expires > now();
    },
  };
}
