// Behaviour switches of the simulated Anthropic upstream. Clients set them in the prompt, so they
// travel through the gateway untouched: "[[sim error=529]]", "[[sim no_usage tool]]",
// "[[sim media_tokens=1600]]" (each image or document block bills that many input tokens), ...
// Tests may also push behaviours onto a simulator directly (see server.ts `next`).

export interface SimBehaviour {
  /** Answer with this HTTP status and an Anthropic error body instead of a message. */
  error?: number;
  /** Omit every usage field (message_start usage and message_delta usage; JSON usage). */
  noUsage?: boolean;
  /** After the 200, send `event: error` (overloaded) after this many content deltas. */
  errorEventAfter?: number;
  /** Close the connection after this many content deltas, with no message_delta/stop. */
  cutAfter?: number;
  /** Write every frame in two TCP chunks, split mid-JSON. */
  split?: boolean;
  firstByteMs?: number;
  gapMs?: number;
  /** Answer with a tool_use block (input_json_delta) instead of text. */
  tool?: boolean;
  /** Start with a thinking block. */
  thinking?: boolean;
  /** Number of text deltas in an answer (default 8), sent even past the request's max_tokens. */
  deltas?: number;
  /** Each text delta carries this many characters (default: one word). */
  deltaChars?: number;
  /** Report these cumulative output tokens whatever was sent (a provider over-reporting). */
  reportOutput?: number;
  /** Answer 200 with a body that is not JSON (or not SSE). */
  garbage?: boolean;
  /** Error bodies mention hosts, URLs, ids and a key, as careless providers do. */
  leaky?: boolean;
  /** Reported cache usage: all writes, the 1-hour part of them, reads. */
  cacheWrite?: number;
  cacheWrite1h?: number;
  cacheRead?: number;
  /** Reported server tool requests. */
  webSearch?: number;
  webFetch?: number;
  /** Reported service tier (e.g. priority). */
  tier?: string;
  /** message_delta leaves input and cache fields null (they keep message_start's values). */
  usageNulls?: boolean;
  /** Send this many message_delta events, each with the cumulative output so far. */
  messageDeltas?: number;
  /**
   * Each media block of the request (an image, document, file or audio, by URL or inline) counts
   * this many input tokens, as providers bill media by its content, not its URL's characters.
   */
  mediaTokens?: number;
}

const DIRECTIVE = /\[\[sim ([^\]]*)\]\]/g;

export function parseDirectives(text: string): SimBehaviour {
  const behaviour: SimBehaviour = {};
  for (const match of text.matchAll(DIRECTIVE)) {
    for (const token of (match[1] ?? '').trim().split(/\s+/)) {
      const [name, raw] = token.split('=');
      const value = raw === undefined ? undefined : Number(raw);
      switch (name) {
        case 'error':
          behaviour.error = value;
          break;
        case 'no_usage':
          behaviour.noUsage = true;
          break;
        case 'error_event':
          behaviour.errorEventAfter = value ?? 2;
          break;
        case 'cut':
          behaviour.cutAfter = value ?? 2;
          break;
        case 'split':
          behaviour.split = true;
          break;
        case 'first_byte_ms':
          behaviour.firstByteMs = value;
          break;
        case 'gap_ms':
          behaviour.gapMs = value;
          break;
        case 'tool':
          behaviour.tool = true;
          break;
        case 'thinking':
          behaviour.thinking = true;
          break;
        case 'deltas':
          behaviour.deltas = value;
          break;
        case 'delta_chars':
          behaviour.deltaChars = value;
          break;
        case 'report_output':
          behaviour.reportOutput = value;
          break;
        case 'garbage':
          behaviour.garbage = true;
          break;
        case 'leaky':
          behaviour.leaky = true;
          break;
        case 'cache_write':
          behaviour.cacheWrite = value;
          break;
        case 'cache_write_1h':
          behaviour.cacheWrite1h = value;
          break;
        case 'cache_read':
          behaviour.cacheRead = value;
          break;
        case 'web_search':
          behaviour.webSearch = value;
          break;
        case 'web_fetch':
          behaviour.webFetch = value;
          break;
        case 'tier':
          behaviour.tier = raw;
          break;
        case 'usage_nulls':
          behaviour.usageNulls = true;
          break;
        case 'message_deltas':
          behaviour.messageDeltas = value;
          break;
        case 'media_tokens':
          behaviour.mediaTokens = value;
          break;
        default:
          break;
      }
    }
  }
  return behaviour;
}

/** All text of a request, for directives and for the simulator's own token count. */
export function requestText(body: { system?: unknown; messages?: unknown; tools?: unknown }): string {
  const parts: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node === 'string') parts.push(node);
    else if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') Object.values(node).forEach(walk);
  };
  walk(body.system);
  walk(body.messages);
  walk(body.tools);
  return parts.join(' ');
}
