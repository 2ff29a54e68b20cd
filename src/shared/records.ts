// The one test for "a JSON object" the gateway reads bodies, usage and error answers with.

/** A plain JSON object: not null, not an array. */
export const isRecord = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);
