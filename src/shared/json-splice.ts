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
        if (text[colon] === ':' && keyIs(text, i, end, key)) {
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

/**
 * Whether the JSON string from the quote at `start` to the one at `end` reads `key`. Written
 * without an escape, its text is its value: compared as it stands, without a JSON.parse per member
 * (each text here has been parsed whole before, so every string in it is well formed).
 */
function keyIs(text: string, start: number, end: number, key: string): boolean {
  for (let i = start + 1; i < end; i++) if (text.charCodeAt(i) === 92 /* \\ */) return JSON.parse(text.slice(start, end + 1)) === key;
  return end - start - 1 === key.length && text.startsWith(key, start + 1);
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
  const cacheKey = `${key}\u0000${from}`;
  let needle = needles.get(cacheKey);
  if (!needle) {
    if (needles.size > 1000) needles.clear();
    needles.set(cacheKey, (needle = new RegExp(`${escapeRegExp(JSON.stringify(key))}\\s*:\\s*${escapeRegExp(JSON.stringify(from))}`)));
  }
  const match = needle.exec(text);
  if (!match) return undefined;
  return `${text.slice(0, match.index)}${JSON.stringify(key)}:${JSON.stringify(to)}${text.slice(match.index + match[0].length)}`;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** One compiled needle per (key, upstream name): a stream rewrites its message_start with it. */
const needles = new Map<string, RegExp>();

/** A top-level member of a JSON object text: where its key starts and its value's span. */
interface Member {
  key: string;
  start: number;
  valueStart: number;
  valueEnd: number;
}

/** Index just past the JSON value starting at `start` (any type), or -1. */
function valueEnd(text: string, start: number): number {
  const first = text[start];
  if (first === '"') {
    const end = stringEnd(text, start);
    return end === -1 ? -1 : end + 1;
  }
  if (first === '{' || first === '[') {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (c === '"') {
        i = stringEnd(text, i);
        if (i === -1) return -1;
      } else if (c === '{' || c === '[') depth++;
      else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
    }
    return -1;
  }
  let i = start;
  while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i++;
  return i === start ? -1 : i;
}

/** The top-level members of an object text and where its closing brace is; undefined when it is not one object. */
function members(text: string): { list: Member[]; open: number; close: number } | undefined {
  const open = skipSpace(text, 0);
  if (text[open] !== '{') return undefined;
  const list: Member[] = [];
  let i = skipSpace(text, open + 1);
  if (text[i] === '}') return { list, open, close: i };
  for (;;) {
    if (text[i] !== '"') return undefined;
    const keyEnd = stringEnd(text, i);
    if (keyEnd === -1) return undefined;
    const colon = skipSpace(text, keyEnd + 1);
    if (text[colon] !== ':') return undefined;
    const valueStart = skipSpace(text, colon + 1);
    const end = valueEnd(text, valueStart);
    if (end === -1) return undefined;
    list.push({ key: JSON.parse(text.slice(i, keyEnd + 1)) as string, start: i, valueStart, valueEnd: end });
    const next = skipSpace(text, end);
    if (text[next] === '}') return { list, open, close: next };
    if (text[next] !== ',') return undefined;
    i = skipSpace(text, next + 1);
  }
}

/**
 * Sets the top-level member `key` of a JSON object text to the JSON text `value`: every
 * occurrence replaced in place, or one member appended after the last. The rest of the text is
 * untouched. Undefined when the text is not a JSON object.
 */
export function setTopLevelMember(text: string, key: string, value: string): string | undefined {
  const found = members(text);
  if (!found) return undefined;
  const matching = found.list.filter((m) => m.key === key);
  if (matching.length === 0) {
    const last = found.list.at(-1);
    const at = last ? last.valueEnd : found.open + 1;
    return `${text.slice(0, at)}${last ? ',' : ''}${JSON.stringify(key)}:${value}${text.slice(at)}`;
  }
  let out = '';
  let from = 0;
  for (const m of matching) {
    out += text.slice(from, m.valueStart) + value;
    from = m.valueEnd;
  }
  return out + text.slice(from);
}

/**
 * Removes every top-level member `key` whose value is exactly the JSON text `value` (e.g. `null`),
 * with its separating comma. Undefined when there is none or the text is not a JSON object.
 */
export function removeTopLevelMember(text: string, key: string, value: string): string | undefined {
  const found = members(text);
  if (!found) return undefined;
  const { list } = found;
  const doomed = new Set(list.filter((m) => m.key === key && text.slice(m.valueStart, m.valueEnd) === value));
  if (doomed.size === 0) return undefined;
  // Each survivor keeps the separator before it (a comma and spacing); the first one keeps none.
  const survivors = list
    .map((m, i) => ({ m, before: text.slice(i === 0 ? found.open + 1 : list[i - 1]!.valueEnd, m.start) }))
    .filter(({ m }) => !doomed.has(m));
  let out = text.slice(0, found.open + 1);
  survivors.forEach(({ m, before }, i) => {
    out += (i === 0 ? before.replace(',', '') : before) + text.slice(m.start, m.valueEnd);
  });
  return out + text.slice(list.at(-1)!.valueEnd);
}
