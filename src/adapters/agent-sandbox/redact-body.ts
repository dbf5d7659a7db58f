/**
 * Request bodies as the model proxy forwards them: decoded (a body we cannot
 * read is a body we cannot redact), every string of a JSON body redacted,
 * credential placeholders swapped for the real values in headers and the URL.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';

export const DECODERS: Record<string, (buffer: Buffer) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

/** Redacts every string in a JSON value; returns whether anything changed. */
function redactJson(value: unknown, redact: (text: string) => string): { value: unknown; changed: boolean } {
  if (typeof value === 'string') {
    const redacted = redact(value);
    return { value: redacted, changed: redacted !== value };
  }
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const result = redactJson(item, redact);
      changed ||= result.changed;
      return result.value;
    });
    return { value: items, changed };
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const result = redactJson(item, redact);
      changed ||= result.changed;
      return [key, result.value] as const;
    });
    return { value: Object.fromEntries(entries), changed };
  }
  return { value, changed: false };
}

/** The body as forwarded: decoded, redacted when it held a known secret, re-encoded as identity. */
export function redactBody(body: Buffer, redact: (text: string) => string): { body: Buffer; changed: boolean } {
  if (body.length === 0) return { body, changed: false };
  const text = body.toString('utf8');
  try {
    const result = redactJson(JSON.parse(text), redact);
    return result.changed ? { body: Buffer.from(JSON.stringify(result.value)), changed: true } : { body, changed: false };
  } catch {
    const redacted = redact(text);
    return redacted === text ? { body, changed: false } : { body: Buffer.from(redacted), changed: true };
  }
}

/** Replaces every placeholder with its real value (headers, and the URL for keys sent as `?key=`). */
export function substituteCredentials(value: string, credentials: ReadonlyArray<readonly [string, string]>): string {
  let result = value;
  for (const [placeholder, real] of credentials) result = result.split(placeholder).join(real);
  return result;
}
