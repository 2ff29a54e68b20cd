// Request bodies as the fuzzer builds them: plain JSON values plus two escapes that JSON.stringify
// cannot express, so hostile text reaches the gateway exactly as written: `Raw` (literal JSON text
// such as `1e400` or 50,000 nested arrays) and `Pairs` (an object with duplicate or
// prototype-named keys, in order). The same tree becomes a JSON text or multipart form fields.

/** Literal JSON text placed as it is. */
export class Raw {
  constructor(readonly text: string) {}
  toString(): string {
    return `Raw(${this.text.length > 60 ? `${this.text.slice(0, 60)}... (${this.text.length} chars)` : this.text})`;
  }
}

/** An object as an ordered list of members: keys may repeat or be `__proto__`. */
export class Pairs {
  constructor(readonly entries: Array<[string, unknown]>) {}
  toString(): string {
    return `Pairs(${this.entries.map(([k, v]) => `${JSON.stringify(k.slice(0, 40))}: ${describe(v)}`).join(', ')})`;
  }
}

export type Tree = Raw | Pairs | Tree[] | string | number | boolean | null;

const describe = (value: unknown): string =>
  value instanceof Raw || value instanceof Pairs ? String(value) : (JSON.stringify(value) ?? 'undefined').slice(0, 80);

/** A plain JSON value as a tree whose objects are Pairs (so mutations may add any key). */
export function toTree(value: unknown): Tree {
  if (value instanceof Raw || value instanceof Pairs) return value;
  if (Array.isArray(value)) return value.map(toTree);
  if (value && typeof value === 'object') return new Pairs(Object.entries(value).map(([k, v]) => [k, toTree(v)]));
  if (value === undefined) return null;
  return value as string | number | boolean | null;
}

/** A deep copy: hostile values are shared constants, and mutations change trees in place. */
export function cloneTree(tree: unknown): Tree {
  if (tree instanceof Raw) return tree;
  if (tree instanceof Pairs) return new Pairs(tree.entries.map(([k, v]) => [k, cloneTree(v)]));
  if (Array.isArray(tree)) return tree.map(cloneTree);
  return toTree(tree);
}

/** The JSON text of a tree, without recursion limits of its own beyond the tree's depth. */
export function jsonText(tree: unknown): string {
  if (tree instanceof Raw) return tree.text;
  if (tree instanceof Pairs) return `{${tree.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  if (Array.isArray(tree)) return `[${tree.map(jsonText).join(',')}]`;
  if (typeof tree === 'number' && !Number.isFinite(tree)) return String(tree); // NaN / Infinity: invalid JSON on purpose
  return JSON.stringify(tree) ?? 'null';
}

/** Bracket-encoded form fields (`content[][type]=text`), as the OpenAI SDK sends multipart. */
export function formFields(tree: unknown, prefix = ''): Array<[string, string]> {
  if (tree instanceof Pairs) return tree.entries.flatMap(([k, v]) => formFields(v, prefix ? `${prefix}[${k}]` : k));
  if (Array.isArray(tree)) return tree.flatMap((v) => formFields(v, `${prefix}[]`));
  const value = tree instanceof Raw ? tree.text : tree === null ? '' : String(tree);
  return [[prefix || 'value', value]];
}

/** A multipart/form-data body from fields, with an optional boundary override for broken bodies. */
export function multipartBody(fields: Array<[string, string]>, boundary: string): Buffer {
  const parts = fields.map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/"/g, '%22').replace(/\r|\n/g, ' ')}"\r\n\r\n${value}\r\n`,
  );
  return Buffer.from(`${parts.join('')}--${boundary}--\r\n`, 'utf8');
}

/** `levels` nested arrays (or objects) around `inner`, as text: no JSON.stringify recursion. */
export function deepText(levels: number, kind: 'array' | 'object', inner = '1'): string {
  return kind === 'array' ? `${'['.repeat(levels)}${inner}${']'.repeat(levels)}` : `${'{"a":'.repeat(levels)}${inner}${'}'.repeat(levels)}`;
}
