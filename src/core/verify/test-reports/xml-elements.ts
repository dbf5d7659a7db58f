/**
 * A small strict XML reader for JUnit reports: elements, attributes and
 * nesting only (text, comments, CDATA, the declaration and doctype are
 * skipped). Written here rather than taken from a library because JUnit is a
 * tiny subset of XML, the core must stay pure, and a strict reader that
 * refuses what it does not understand is the fail-closed choice: a report it
 * cannot read falls back to the exit code instead of being half-read.
 */

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
}

export type XmlParse = { ok: true; root: XmlElement } | { ok: false; reason: string };

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(text: string): string | null {
  let bad = false;
  const decoded = text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (_match, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number.parseInt(entity.slice(1), 10));
    const named = ENTITIES[entity];
    if (named === undefined) bad = true;
    return named ?? '';
  });
  return bad ? null : decoded;
}

const NAME = /^[A-Za-z_][\w.:-]*/;
const ATTRIBUTE = /^\s+([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/;

/**
 * Parses a document into its root element.
 *
 * @example
 * ```ts
 * parseXml('<a x="1"><b/></a>'); // → { ok: true, root: { name: 'a', attributes: { x: '1' }, children: [{ name: 'b', … }] } }
 * parseXml('<a><b></a>'); // → { ok: false, reason: 'XML: </a> closes <b> at offset 6' }
 * ```
 */
export function parseXml(text: string): XmlParse {
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let index = 0;
  const fail = (why: string): XmlParse => ({ ok: false, reason: `XML: ${why} at offset ${index}` });
  while (index < text.length) {
    const open = text.indexOf('<', index);
    if (open === -1) break;
    index = open;
    if (text.startsWith('<!--', index)) {
      const end = text.indexOf('-->', index + 4);
      if (end === -1) return fail('unterminated comment');
      index = end + 3;
    } else if (text.startsWith('<![CDATA[', index)) {
      const end = text.indexOf(']]>', index + 9);
      if (end === -1) return fail('unterminated CDATA');
      index = end + 3;
    } else if (text.startsWith('<?', index)) {
      const end = text.indexOf('?>', index + 2);
      if (end === -1) return fail('unterminated declaration');
      index = end + 2;
    } else if (text.startsWith('<!', index)) {
      const end = text.indexOf('>', index + 2);
      if (end === -1) return fail('unterminated doctype');
      index = end + 1;
    } else if (text.startsWith('</', index)) {
      const name = NAME.exec(text.slice(index + 2))?.[0];
      const top = stack.pop();
      if (!name || !top) return fail('a closing tag with no open element');
      if (top.name !== name) return fail(`</${name}> closes <${top.name}>`);
      const end = text.indexOf('>', index);
      if (end === -1 || text.slice(index + 2 + name.length, end).trim() !== '') return fail(`malformed </${name}>`);
      index = end + 1;
    } else {
      const name = NAME.exec(text.slice(index + 1))?.[0];
      if (!name) return fail('a "<" that starts no element');
      let rest = text.slice(index + 1 + name.length);
      let consumed = index + 1 + name.length;
      const attributes: Record<string, string> = {};
      for (let match = ATTRIBUTE.exec(rest); match; match = ATTRIBUTE.exec(rest)) {
        const value = decode(match[2] ?? match[3] ?? '');
        if (value === null) return fail(`an unknown entity in attribute ${match[1] ?? ''}`);
        attributes[match[1] ?? ''] = value;
        rest = rest.slice(match[0].length);
        consumed += match[0].length;
      }
      const close = /^\s*(\/?)>/.exec(rest);
      if (!close) return fail(`malformed <${name}>`);
      index = consumed + close[0].length;
      const element: XmlElement = { name, attributes, children: [] };
      const parent = stack.at(-1);
      if (parent) parent.children.push(element);
      else if (root) return fail('a second root element');
      else root = element;
      if (close[1] !== '/') stack.push(element);
    }
  }
  if (stack.length > 0) return { ok: false, reason: `XML: <${stack.at(-1)?.name ?? ''}> is never closed (the report was cut short?)` };
  if (!root) return { ok: false, reason: 'XML: no element found' };
  return { ok: true, root };
}
