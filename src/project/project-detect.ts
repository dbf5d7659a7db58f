/**
 * Which loops a repository has configured. A project registry.yaml is
 * authoritative; otherwise the signals loop-init and `loop status` leave
 * behind are combined: loops named in LOOP.md, pattern state files that
 * exist, the ledger's pattern, the primary loop of loop-budget.md, and
 * per-loop settings blocks.
 */
import { normalizeLoopName } from '../core/config/load-budget.js';
import type { Pattern } from '../core/config/schemas.js';

export interface DetectionSignals {
  patterns: readonly Pattern[];
  /** Ids from the project's registry.yaml, or null when the project has none. */
  registryIds: readonly string[] | null;
  /** LOOP.md text (front matter included), or null. */
  loopMd: string | null;
  /** Ids named under `loop-runtime: loops:` or with a `loops/<id>/LOOP.md`. */
  settingsIds: readonly string[];
  /** State file names that exist at the repository root. */
  existingStateFiles: ReadonlySet<string>;
  ledgerPattern: string | null;
  budgetPrimaryLoop: string | null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether LOOP.md mentions a pattern by id (`ci-sweeper`), spaced id (`ci sweeper`) or display name (`CI Sweeper`). */
export function mentionsPattern(text: string, pattern: Pick<Pattern, 'id' | 'name'>): boolean {
  const lower = text.toLowerCase();
  const forms = new Set([pattern.id, pattern.id.replace(/-/g, ' '), pattern.name.toLowerCase()]);
  for (const form of forms) {
    // The regex only matches where the form occurs, so most (text, pattern) pairs never compile one: list and
    // status ask this for every catalogue pattern against every LOOP.md declaration.
    if (!lower.includes(form)) continue;
    if (new RegExp(`(^|[^a-z0-9-])${escapeRegExp(form)}($|[^a-z0-9-])`).test(lower)) return true;
  }
  return false;
}

/**
 * The places in LOOP.md that declare loops rather than merely mention them:
 * the first cell of table rows (the "Active Loops" table), `Pattern:` lines
 * and headings. Prose like "graduate to Daily Triage" is not a declaration.
 */
export function loopDeclarations(text: string): string[] {
  const declarations: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const row = /^\s*\|([^|]*)\|/.exec(line);
    if (row) {
      const cell = (row[1] ?? '').trim();
      if (cell && !/^:?-+:?$/.test(cell) && !/^(pattern|loop)s?$/i.test(cell)) declarations.push(cell);
      continue;
    }
    const declared = /\bpattern\b[*_]*\s*:\s*(.+)$/i.exec(line);
    if (declared) declarations.push(declared[1] as string);
    const heading = /^#{1,4}\s+(.+)$/.exec(line);
    if (heading) declarations.push(heading[1] as string);
  }
  return declarations;
}

function namedInLoopMd(text: string, pattern: Pick<Pattern, 'id' | 'name'>, declarations: readonly string[] | null): boolean {
  return declarations ? declarations.some((declaration) => mentionsPattern(declaration, pattern)) : mentionsPattern(text, pattern);
}

/**
 * The configured loop ids, in catalogue order. LOOP.md counts through its
 * declarations when it has any that name a known pattern, else through any mention.
 *
 * @example
 * ```ts
 * detectConfiguredLoops({ patterns, registryIds: null, loopMd: '| Daily Triage | 1d |', settingsIds: [],
 *   existingStateFiles: new Set(), ledgerPattern: null, budgetPrimaryLoop: null }); // → ['daily-triage']
 * ```
 */
export function detectConfiguredLoops(signals: DetectionSignals): string[] {
  if (signals.registryIds && signals.registryIds.length > 0) return [...new Set(signals.registryIds)];
  const found = new Set<string>();
  const loopMd = signals.loopMd;
  const declarations = loopMd ? loopDeclarations(loopMd) : [];
  const declaresAny = signals.patterns.some((pattern) => declarations.some((declaration) => mentionsPattern(declaration, pattern)));
  for (const pattern of signals.patterns) {
    if (loopMd && namedInLoopMd(loopMd, pattern, declaresAny ? declarations : null)) found.add(pattern.id);
    // STATE.md is shared by several patterns; on its own it only points at daily-triage.
    if (signals.existingStateFiles.has(pattern.state) && (pattern.state !== 'STATE.md' || pattern.id === 'daily-triage')) found.add(pattern.id);
    if (signals.ledgerPattern === pattern.id) found.add(pattern.id);
    if (signals.budgetPrimaryLoop && normalizeLoopName(signals.budgetPrimaryLoop) === normalizeLoopName(pattern.name)) found.add(pattern.id);
    if (signals.budgetPrimaryLoop && normalizeLoopName(signals.budgetPrimaryLoop) === normalizeLoopName(pattern.id)) found.add(pattern.id);
    if (signals.settingsIds.includes(pattern.id)) found.add(pattern.id);
  }
  return signals.patterns.map((pattern) => pattern.id).filter((id) => found.has(id));
}
