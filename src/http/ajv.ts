// The Ajv both request and response validation use: JSON Schema 2020-12 (OpenAPI 3.1's dialect;
// openapi-backend's built-in Ajv is draft-07, which rejects 3.1 constructs such as
// `type: [string, "null"]`), formats checked, the first error only.
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';

export function newAjv(options: Record<string, unknown>): Ajv2020.default {
  const ajv = new Ajv2020.default({ ...options, strict: false, allErrors: false, validateFormats: true, useDefaults: false });
  addFormats.default(ajv);
  // RFC 3339 admits a leap second (23:59:60), year 0000 and offsets that carry a date past 9999;
  // no timestamp column (nor a JS Date) holds those, so a `date-time` here is one that can be stored.
  const rfc3339 = fullFormats['date-time'] as { validate: (text: string) => boolean };
  ajv.addFormat('date-time', { type: 'string', validate: (text: string) => rfc3339.validate(text) && representable(text) });
  return ajv;
}

function representable(text: string): boolean {
  const date = new Date(text);
  const year = date.getUTCFullYear();
  return !Number.isNaN(date.getTime()) && year >= 1 && year <= 9999;
}
