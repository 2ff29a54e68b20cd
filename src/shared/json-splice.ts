// Changes one member of a JSON text without re-serialising the rest: the client's bytes reach the
// provider as sent (number formats, key order, escapes, unknown fields), but for `model`.

/**
 * Replaces the value of every top-level member `key` of a JSON object text with the string
 * `value`. Returns undefined when the text is not an object or has no such string member.
 */
export function spliceTopLevelString(text: string, key: string, value: string): string | undefined {
  const spans: Array<[number, number]> = [];
  let depth = 0;
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return undefined;
  let expectKey = false;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const end = stringEnd(text, i);
      if (end === -1) return undefined;
      if (depth === 1 && expectKey) {
        const colon = skipSpace(text, end + 1);
        if (text[colon] === ':' && JSON.parse(text.slice(i, end + 1)) === key) {
          const start = skipSpace(text, colon + 1);
          if (text[start] !== '"') return undefined; // the member is not a string
          const valueEnd = stringEnd(text, start);
          if (valueEnd === -1) return undefined;
          spans.push([start, valueEnd + 1]);
          i = valueEnd;
          expectKey = false;
          continue;
        }
      }
      i = end;
      expectKey = false;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
      expectKey = c === 123 && depth === 1;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    } else if (c === 44 /* , */ && depth === 1) {
      expectKey = true;
    }
  }
  if (spans.length === 0) return undefined;
  const encoded = JSON.stringify(value);
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    out += text.slice(from, start) + encoded;
    from = end;
  }
  return out + text.slice(from);
}

/** Index of the closing quote of the string starting at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 34) return i;
  }
  return -1;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}

/**
 * Replaces the first `"<key>": "<from>"` member anywhere in a JSON text with `to` (the model of a
 * message, whose exact place the provider decides). Undefined when there is none.
 */
export function spliceFirstMember(text: string, key: string, from: string, to: string): string | undefined {
  const needle = new RegExp(`${escapeRegExp(JSON.stringify(key))}\\s*:\\s*${escapeRegExp(JSON.stringify(from))}`);
  const match = needle.exec(text);
  if (!match) return undefined;
  return `${text.slice(0, match.index)}${JSON.stringify(key)}:${JSON.stringify(to)}${text.slice(match.index + match[0].length)}`;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
