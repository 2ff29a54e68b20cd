// Hostile inputs, by where they go: JSON values and keys, whole bodies, path segments, query values,
// header values, and mutations of a valid value (type flips, dropped and added members, duplicate
// and prototype-named keys, deep nesting). Every list is fixed text, so a failure prints the exact
// input and a seed replays it.
import fc from 'fast-check';
import { cloneTree, deepText, Pairs, Raw, toTree, type Tree } from './json-text.ts';

export const DEEP = 50_000;
const LONG = 'a'.repeat(100_000);

/** Numbers as literal JSON text: JSON.parse turns 1e400 into Infinity and 2^63 into a lossy double. */
export const HOSTILE_NUMBERS = [
  '9223372036854775808',
  '9223372036854775807',
  '18446744073709551616',
  '1e20',
  '1e400',
  '-1e400',
  '1E-400',
  '-1',
  '0',
  '-0',
  '1.5',
  '123456789012345678901234567890',
  '4294967296',
].map((n) => new Raw(n));

export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  'NaN',
  'Infinity',
  '-Infinity',
  '-1',
  '1e400',
  '9223372036854775808',
  '0x10',
  '__proto__',
  'constructor',
  'prototype',
  '%ff',
  '%',
  '%00',
  '../../etc/passwd',
  '\r\nx-injected: 1',
  "' or 1=1 --",
  '<script>alert(1)</script>',
  '\u202egnp.exe',
  'é',
  '😀',
  '\ufeff',
  'cus_',
  'vt_',
  'key_',
  'sandbox/claude-haiku\u0000',
  LONG,
];

export const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '',
  '\u0000',
  '\ud800',
  'unknown_field',
  '$ref',
  'x'.repeat(10_000),
];

export const prototypeShaped = (): Pairs[] => [
  new Pairs([['__proto__', new Pairs([['x', 'polluted']])]]),
  new Pairs([['constructor', new Pairs([['prototype', new Pairs([['x', 'polluted']])]])]]),
  new Pairs([['prototype', new Pairs([['x', 'polluted']])]]),
  new Pairs([['toString', 1]]),
  new Pairs([['valueOf', new Pairs([])]]),
];

const STRUCTURES: Tree[] = [
  null,
  true,
  false,
  [],
  new Pairs([]),
  new Raw(deepText(DEEP, 'array')),
  new Raw(deepText(DEEP, 'object')),
  new Raw(`[${'0,'.repeat(20_000)}0]`),
  ['x', 1, null],
];

/** Any hostile JSON value. */
export const hostileValue: fc.Arbitrary<Tree> = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom(...STRUCTURES),
  fc.constantFrom(...prototypeShaped()),
);

export const hostileKey = fc.constantFrom(...HOSTILE_KEYS);

/** Whole bodies, as bytes: empty, not JSON, not objects, broken encodings, prototype payloads. */
export const HOSTILE_BODIES: Array<string | Buffer> = [
  '',
  ' ',
  'null',
  '[]',
  '"text"',
  '123',
  '1e400',
  'true',
  '{',
  '{"a":1',
  '}{',
  '{"a":1}{"b":2}',
  '\ufeff{}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"a":"x\u0000y"}',
  Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
  '{"__proto__":{"x":"polluted"}}',
  '{"constructor":{"prototype":{"x":"polluted"}}}',
  deepText(DEEP, 'array'),
  deepText(DEEP, 'object'),
  `{"model":${deepText(DEEP, 'array')}}`,
  '{"a":1,"a":2,"a":{"__proto__":{"x":1}}}',
  `{"x":"${LONG}"}`,
];

/** Path segments, already as they appear on the wire (percent-encoded or deliberately not). */
export const HOSTILE_SEGMENTS = [
  '%00',
  'cus_%00',
  'vt_%00x',
  'key_%00',
  '%ff',
  '%',
  '%E0%A4%A',
  '%ED%A0%80',
  '%C0%AF',
  '%2F',
  '%2e%2e',
  '..',
  '.',
  '%20',
  'a'.repeat(4000),
  '__proto__',
  'constructor',
  'prototype',
  '%F0%9F%98%80',
  'cus_%5B%5D',
  '9223372036854775808',
  '-1',
  'NaN',
  '%25',
  '%u0000',
];

/** Query values, already encoded. */
export const HOSTILE_QUERY_VALUES = [
  '',
  '%00',
  'a%00b',
  '%ff',
  '%',
  '%ED%A0%80',
  '-1',
  '0',
  '1e2',
  '1e400',
  'Infinity',
  'NaN',
  '9223372036854775808',
  '9223372036854775807',
  '99999999999999999999',
  '1.5',
  '%205',
  '0x10',
  'true',
  'a'.repeat(4000),
  '2026-11-22T23:59:60Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-23:59',
  '2026-02-30T00:00:00Z',
  '%5B%5D',
  '__proto__',
];

/** Unknown query parameters the gateway must tolerate (the Anthropic SDK sends ?beta=true). */
export const UNKNOWN_QUERY = ['beta=true', '__proto__=1', '__proto__[x]=1', 'constructor[prototype][x]=1', 'a%00=b', 'limit[]=1', '=', '&&&', 'x=%ff'];

/** Header values Node's parser lets through (no CR, LF or NUL): latin-1, long, empty. */
export const HOSTILE_HEADER_VALUES = [
  '',
  ' ',
  'caf\u00e9',
  '\u00ff\u00fe',
  'x'.repeat(8000),
  '2023-06-01, 2023-06-01',
  '__proto__',
  '../../x',
  '-1',
  '9223372036854775808',
];

export type MutationKind = 'replace' | 'flip' | 'drop' | 'add-key' | 'duplicate' | 'deep';
export interface Mutation {
  kind: MutationKind;
  /** Which node (modulo the tree's node count) the mutation hits. */
  at: number;
  value: Tree;
  key: string;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom<MutationKind>('replace', 'flip', 'drop', 'add-key', 'duplicate', 'deep'),
  at: fc.nat(1000),
  value: hostileValue,
  key: hostileKey,
});

/** Applies mutations to a copy of a valid value. */
export function mutate(value: unknown, mutations: Mutation[]): Tree {
  let tree = toTree(structuredClone(value));
  for (const m of mutations) tree = applyOne(tree, m);
  return tree;
}

type Slot = { get: () => Tree; set: (v: Tree) => void; parent?: Pairs | Tree[]; index?: number };

function slots(tree: Tree, holder: { root: Tree }): Slot[] {
  const out: Slot[] = [{ get: () => holder.root, set: (v) => (holder.root = v) }];
  const walk = (node: Tree) => {
    const children =
      node instanceof Pairs
        ? node.entries.map((e, i) => ({ node: e[1] as Tree, i, in: node }))
        : Array.isArray(node)
          ? node.map((n, i) => ({ node: n, i, in: node }))
          : [];
    for (const child of children) {
      const container = child.in;
      out.push({
        get: () => (container instanceof Pairs ? (container.entries[child.i]![1] as Tree) : (container as Tree[])[child.i]!),
        set: (v) => (container instanceof Pairs ? (container.entries[child.i]![1] = v) : ((container as Tree[])[child.i] = v)),
        parent: container,
        index: child.i,
      });
      walk(child.node);
    }
  };
  walk(tree);
  return out;
}

function applyOne(tree: Tree, m: Mutation): Tree {
  const holder = { root: tree };
  const all = slots(tree, holder);
  const slot = all[m.at % all.length]!;
  const node = slot.get();
  m = { ...m, value: cloneTree(m.value) };
  switch (m.kind) {
    case 'replace':
      slot.set(m.value);
      break;
    case 'flip':
      slot.set(flip(node));
      break;
    case 'deep':
      slot.set(new Raw(deepText(DEEP, m.at % 2 === 0 ? 'array' : 'object')));
      break;
    case 'drop':
      if (slot.parent instanceof Pairs) slot.parent.entries.splice(slot.index!, 1);
      else if (Array.isArray(slot.parent)) slot.parent.splice(slot.index!, 1);
      else slot.set(null);
      break;
    case 'add-key':
      if (node instanceof Pairs) node.entries.push([m.key, m.value]);
      else slot.set(new Pairs([[m.key, m.value]]));
      break;
    case 'duplicate':
      if (node instanceof Pairs && node.entries.length > 0) {
        const [key] = node.entries[m.at % node.entries.length]!;
        node.entries.splice(m.at % 2 === 0 ? 0 : node.entries.length, 0, [key, m.value]);
      } else
        slot.set(
          new Pairs([
            ['a', 1],
            ['a', m.value],
          ]),
        );
      break;
  }
  return holder.root;
}

/** The same place, another JSON type. */
function flip(node: Tree): Tree {
  if (typeof node === 'string') return node.length % 2 === 0 ? 12345 : [node];
  if (typeof node === 'number') return String(node);
  if (typeof node === 'boolean') return node ? 'true' : 0;
  if (node === null) return new Pairs([]);
  if (Array.isArray(node)) return new Pairs(node.map((v, i) => [String(i), v]));
  if (node instanceof Pairs) return node.entries.map(([, v]) => v as Tree);
  return null;
}

/** Requests Node's HTTP parser itself refuses: they must still get a JSON error and a request-id. */
export const TRANSPORT_GARBAGE = [
  'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'GET /v1/models HTTP/1.1\r\nHost: x\r\nContent-Length: 1e3\r\n\r\n',
  'POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
  'POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  'POST /admin/v1/customers HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
  `GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  'GARBAGE\r\n\r\n',
  'GET /v1/messages\u0000 HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n',
  'GET healthz HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n',
  'GET /healthz HTTP/1.1\r\nHost: x\r\n bad folding\r\n\r\n',
];
