/**
 * The config file parsers (yaml with positions, zod validation), loaded on
 * first use: a repository whose loop files hold no YAML — a fresh loop-init
 * scaffold — never loads either library, which keeps `list`, `plan` and
 * `validate` fast to start.
 */
import type { LoadResult } from '../core/config/diagnostics.js';
import { splitFrontMatter } from '../core/config/front-matter.js';
import type { LoopDocument } from '../core/config/load-loop-md.js';

type Parsers = typeof import('./config-parsers-eager.js');

let parsers: Promise<Parsers> | undefined;

/** registry.yaml, gate.yaml, loop-ledger.json and LOOP.md loaders. */
export function configParsers(): Promise<Parsers> {
  parsers ??= import('./config-parsers-eager.js');
  return parsers;
}

/** `loadLoopMd`, loading the parsers only when the text has front matter to parse. */
export async function loadLoopMdText(text: string, file: string): Promise<LoadResult<LoopDocument>> {
  const split = splitFrontMatter(text);
  if (split.yaml === null) return { ok: true, value: { settings: null, body: split.body, hasFrontMatter: false }, warnings: [] };
  return (await configParsers()).loadLoopMd(text, file);
}
