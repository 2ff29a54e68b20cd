// Valid-ish values from a JSON Schema (OpenAPI 3.1 dialect, the subset our contracts use): types,
// enums, consts, anyOf/oneOf/allOf, required and optional properties, patterns, lengths and ranges.
// Recursive schemas are cut at a small depth. `hints` lets the suite steer named fields towards
// values that reach deeper code (a real model id, a real customer id).
import fc from 'fast-check';
import { deref, type Schema } from './operations.ts';

/** A named field's arbitrary instead of the schema's; `fromSchema` is what the schema alone gives. */
export type Hints = (name: string, schema: Schema, fromSchema: () => fc.Arbitrary<unknown>) => fc.Arbitrary<unknown> | undefined;

const MAX_DEPTH = 4;
const SMALL = { maxLength: 3 };

export function valueOf(root: Schema, input: unknown, hints: Hints = () => undefined, name = '', depth = 0): fc.Arbitrary<unknown> {
  const schema = deref(root, input);
  const hinted = name ? hints(name, schema, () => valueOf(root, schema, hints, '', depth)) : undefined;
  if (hinted) return hinted;
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => valueOf(root, s, hints, name, depth + 1)));
  if (Array.isArray(schema.allOf)) return valueOf(root, merge(root, schema), hints, name, depth);
  const type = schema.type;
  if (Array.isArray(type)) return fc.oneof(...type.map((t) => valueOf(root, { ...schema, type: t }, hints, name, depth)));
  switch (type) {
    case 'object':
      return objectOf(root, schema, hints, depth);
    case 'array': {
      const min = Number(schema.minItems ?? 0);
      if (depth >= MAX_DEPTH) return fc.constant([]);
      const max = Math.max(min, Math.min(Number(schema.maxItems ?? 3), 3));
      return fc.array(valueOf(root, schema.items ?? {}, hints, '', depth + 1), { minLength: min, maxLength: max });
    }
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({ min: Number(schema.minimum ?? -1000), max: Number(schema.maximum ?? 100_000) });
    case 'number':
      return fc.double({ min: Number(schema.minimum ?? -1000), max: Number(schema.maximum ?? 1000), noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      if (schema.properties) return objectOf(root, schema, hints, depth);
      return depth >= MAX_DEPTH ? fc.constant(null) : fc.jsonValue({ maxDepth: 2, ...SMALL });
  }
}

function objectOf(root: Schema, schema: Schema, hints: Hints, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set((schema.required ?? []) as string[]);
  if (depth >= MAX_DEPTH) {
    // Only what is required, as simply as possible: recursive schemas end here.
    return fc.constant(Object.fromEntries([...required].map((k) => [k, simplest(root, properties[k])])));
  }
  // Optional members appear one time in four: requests with every option set rarely get past the
  // domain's checks, and the deeper code is worth reaching.
  const members = Object.entries(properties).map(([k, s]) => {
    const value = valueOf(root, s, hints, k, depth + 1).map((v) => [k, v] as const);
    return required.has(k) ? value : fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });
  });
  return fc.tuple(...members).map((list) => Object.fromEntries(list.filter((m) => m !== undefined)));
}

/** The least value a schema accepts, for the depth cut-off. */
function simplest(root: Schema, input: unknown): unknown {
  const schema = deref(root, input);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const alternatives = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (alternatives) return simplest(root, alternatives[0]);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string') return 'x'.repeat(Number(schema.minLength ?? 1));
  if (type === 'integer' || type === 'number') return Number(schema.minimum ?? 1);
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  if (type === 'object' || schema.properties) {
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    return Object.fromEntries(((schema.required ?? []) as string[]).map((k) => [k, simplest(root, properties[k])]));
  }
  return null;
}

function merge(root: Schema, schema: Schema): Schema {
  const parts = (schema.allOf as unknown[]).map((s) => deref(root, s));
  const { allOf: _ignored, ...rest } = schema;
  return parts.reduce<Schema>(
    (acc, part) => ({
      ...acc,
      ...part,
      properties: { ...(acc.properties as object), ...(part.properties as object) },
      required: [...((acc.required as string[]) ?? []), ...((part.required as string[]) ?? [])],
    }),
    rest,
  );
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = Number(schema.minLength ?? 0);
  const maxLength = Math.min(Number(schema.maxLength ?? 24), 64);
  if (schema.format === 'date-time')
    return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= Number(schema.maxLength ?? Infinity));
    } catch {
      // A pattern fast-check cannot invert: plain strings of the right length.
    }
  }
  return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
}
