import type { ExportFormat } from '../domain/billing/export.ts';

/** `format=` wins; else the Accept header (NDJSON when it asks for it, CSV otherwise). */
export function exportFormat(query: Record<string, unknown>, accept: string | string[] | undefined): ExportFormat {
  if (query.format === 'csv' || query.format === 'ndjson') return query.format;
  const asked = (Array.isArray(accept) ? accept.join(',') : (accept ?? '')).toLowerCase();
  return /application\/(x-)?ndjson/.test(asked) ? 'ndjson' : 'csv';
}
