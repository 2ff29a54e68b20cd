// What of a provider's error text may reach a client: its explanation, without the things that
// are ours to keep (hosts, URLs, request and object ids, our upstream model names, credentials).
// The full text goes to the log only.

const URL_LIKE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)\]]+/gi;
const HOST_LIKE = /\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|net|org|io|ai|cn|dev|cloud|app|co|us|eu|internal|local|localhost)\b(?::\d+)?/gi;
const IP_LIKE = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g;
const REQUEST_ID_PHRASE = /\s*\(?\b(?:request|req|trace|log)[ _-]?id\b\s*[:=]?\s*[\w-]+\)?\.?/gi;
const PREFIXED_ID = /\b(?:req|msg|toolu|srvtoolu|chatcmpl|cgt|video|task|file|run|resp|org|proj|ep)[_-][A-Za-z0-9_-]{6,}\b/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const LONG_HEX = /\b[0-9a-f]{16,}\b/gi;
const LONG_NUMBER = /\b\d{10,}\b/g;
const SECRET_LIKE = /\b(?:sk|pk|ak|key)[-_][A-Za-z0-9_-]{8,}\b/g;

/**
 * The provider's message with hosts, URLs, ids and secrets taken out, and each upstream model
 * name replaced by its public id. Empty when nothing useful is left.
 */
export function sanitizeUpstreamMessage(text: string, replacements: ReadonlyArray<readonly [string, string]> = []): string {
  let clean = text.slice(0, 2000);
  for (const [upstream, publicId] of replacements) if (upstream) clean = clean.split(upstream).join(publicId);
  clean = clean
    .replace(URL_LIKE, '[url]')
    .replace(REQUEST_ID_PHRASE, ' ')
    .replace(SECRET_LIKE, '[redacted]')
    .replace(PREFIXED_ID, '[id]')
    .replace(UUID, '[id]')
    .replace(LONG_HEX, '[id]')
    .replace(LONG_NUMBER, '[id]')
    .replace(HOST_LIKE, '[host]')
    .replace(IP_LIKE, '[host]')
    .replace(/\s{2,}/g, ' ')
    .trim();
  return /[A-Za-z]{3,}/.test(clean.replace(/\[(?:url|host|id|redacted)\]/g, '')) ? clean : '';
}

/** The `error.message` and `error.type` of a JSON error body in the usual shapes, if any. */
export function upstreamErrorParts(body: string | undefined): { type: string | undefined; message: string | undefined } {
  try {
    const parsed = JSON.parse(body ?? '') as { error?: unknown; message?: unknown; type?: unknown };
    const error = parsed.error && typeof parsed.error === 'object' ? (parsed.error as Record<string, unknown>) : undefined;
    const type = typeof error?.type === 'string' ? error.type : undefined;
    const message =
      typeof error?.message === 'string'
        ? error.message
        : typeof parsed.message === 'string'
          ? parsed.message
          : typeof parsed.error === 'string'
            ? parsed.error
            : undefined;
    return { type, message };
  } catch {
    return { type: undefined, message: undefined };
  }
}

/** A provider's error text for our own logs: ids kept for support tickets, hosts, URLs and secrets not. */
export function sanitizeForLog(text: string | undefined): string | undefined {
  if (!text) return undefined;
  return text.slice(0, 2000).replace(URL_LIKE, '[url]').replace(SECRET_LIKE, '[redacted]').replace(HOST_LIKE, '[host]').replace(IP_LIKE, '[host]');
}
