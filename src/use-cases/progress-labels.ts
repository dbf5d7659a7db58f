/** The live progress line's words for a tick's events (`run` prints them on one refreshed line). */

const PHASE_VERBS: Record<string, string> = { triage: 'triaging', implement: 'implementing', check: 'checking', verify: 'verifying' };

/** The progress line for a phase that starts: `implementing`, `verifying: npm test`. */
export function phaseLabel(phase: string, detail?: string): string {
  const verb = PHASE_VERBS[phase] ?? phase;
  return detail ? `${verb}: ${detail}` : verb;
}

/**
 * The progress line while the agent retries its model endpoint, e.g.
 * `triaging — retrying: 3 attempts to http://127.0.0.1:4000/v1 refused (ECONNREFUSED)`.
 */
export function retryLabel(event: { phase: string; attempts: number; endpoint: string; failure: string }): string {
  const how = event.failure.startsWith('refused') ? event.failure : `failed (${event.failure})`;
  return `${phaseLabel(event.phase)} — retrying: ${event.attempts} attempt${event.attempts === 1 ? '' : 's'} to ${event.endpoint} ${how}`;
}
