// Token estimates for when a provider reports no usage, and for a reservation's upper bound. A
// character-class heuristic (no tokenizer download): CJK characters count about one token each,
// other text about four characters a token. It errs high rather than low. Everything here is
// iterative and keeps counts, never text, so no input can blow the stack or the heap.

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

/** A running count of delivered text: characters by class, never the text itself. */
export class TextTally {
  private other = 0;
  private cjk = 0;

  add(text: string): void {
    const cjk = text.match(CJK)?.length ?? 0;
    this.cjk += cjk;
    this.other += text.length - cjk;
  }

  /** Text known to hold no CJK (digits, true, false): counted by its length. */
  addPlain(length: number): void {
    this.other += length;
  }

  tokens(): number {
    return this.cjk + Math.ceil(this.other / 4);
  }
}

export function estimateTokens(text: string): number {
  const tally = new TextTally();
  tally.add(text);
  return tally.tokens();
}

/** Input tokens a provider bills for one media block it reads by content, by the catalogue's kinds. */
export interface MediaTokens {
  image: number;
  document: number;
  file: number;
  audio: number;
}

/**
 * How a protocol's media blocks are held: the block `type`s that carry media, each with the kind
 * that prices it, and the tokens per kind (the protocol's defaults, or the model's catalogue
 * `media_tokens`). Providers bill media by its pixels, pages or seconds, which the gateway cannot
 * count from a URL or a base64 string: each block is held at its allowance instead.
 */
export interface MediaAllowance {
  blocks: Readonly<Record<string, keyof MediaTokens>>;
  /** Keys whose object is a media part typed by its MIME type (Gemini's `inlineData`, `fileData`). */
  byMime?: ReadonlySet<string>;
  tokens: MediaTokens;
}

/** The kind a media part's MIME type prices it as: images and audio by their own, a PDF as a document, anything else (video, a file) as a file. */
export function mediaKindOfMime(mime: unknown): keyof MediaTokens {
  const type = typeof mime === 'string' ? mime.toLowerCase() : '';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type === 'application/pdf') return 'document';
  return 'file';
}

/** Media the gateway does not recognise (a `data` string, a data: URL) is held like an image. */
const UNKNOWN_MEDIA_TOKENS = 1_600;

/** A document block whose source is text the request carries (counted as text, not as media). */
const textDocument = (node: Record<string, unknown>): boolean => {
  const source = node.source as { type?: unknown } | undefined;
  return node.type === 'document' && (source?.type === 'text' || source?.type === 'content');
};

/** A text document's source with its `data` (the text itself, not media) under a key counted as text. */
const textSource = ({ data, ...rest }: Record<string, unknown>): Record<string, unknown> => ({ ...rest, text: data });

/**
 * Tokens of every string in a JSON value (keys of objects included: tool schemas are read by the
 * model). A media block of `media` counts its allowance and nothing of its content; strings under a
 * `data` key or in a data: URL elsewhere count as one unknown media item.
 */
export function estimateJsonTokens(value: unknown, media?: MediaAllowance): number {
  const tally = new TextTally();
  let mediaTokens = 0;
  const unknownMedia = media?.tokens.image ?? UNKNOWN_MEDIA_TOKENS;
  // Two plain stacks rather than an object per value: bodies of millions of small values.
  const nodes: unknown[] = [value];
  const keys: Array<string | undefined> = [undefined];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const key = keys.pop();
    if (typeof node === 'string') {
      if (key === 'data' || node.startsWith('data:')) mediaTokens += unknownMedia;
      else tally.add(node);
    } else if (Array.isArray(node)) {
      for (const child of node) {
        if (typeof child === 'number' || typeof child === 'boolean') tally.addPlain(String(child).length);
        else if (child !== null) {
          nodes.push(child);
          keys.push(undefined);
        }
      }
    } else if (node && typeof node === 'object') {
      if (key !== undefined && media?.byMime?.has(key)) {
        const part = node as Record<string, unknown>;
        mediaTokens += media.tokens[mediaKindOfMime(part.mimeType ?? part.mime_type)];
        continue;
      }
      const type = (node as { type?: unknown }).type;
      const kind = media && typeof type === 'string' && Object.hasOwn(media.blocks, type) ? media.blocks[type] : undefined;
      if (kind && !textDocument(node as Record<string, unknown>)) {
        mediaTokens += media!.tokens[kind];
        continue;
      }
      for (const childKey in node) {
        if (!Object.hasOwn(node, childKey)) continue;
        tally.add(childKey);
        nodes.push(
          kind && childKey === 'source' ? textSource((node as { source: Record<string, unknown> }).source) : (node as Record<string, unknown>)[childKey],
        );
        keys.push(childKey);
      }
    } else if (typeof node === 'number' || typeof node === 'boolean') tally.addPlain(String(node).length);
  }
  return tally.tokens() + mediaTokens;
}

/**
 * Adds the text of every string in a JSON value (a stream delta, an answer's message or parts) to
 * a tally, except under keys that are not content (ids, roles, signatures) and under `data`
 * (inline media: base64 is not text). Iterative, like the rest of this file.
 */
export function tallyContent(tally: TextTally, node: unknown, notContent: ReadonlySet<string>): void {
  const stack: Array<{ value: unknown; key: string | undefined }> = [{ value: node, key: undefined }];
  while (stack.length > 0) {
    const { value, key } = stack.pop()!;
    if (typeof value === 'string') {
      if (key !== 'data' && !notContent.has(key ?? '')) tally.add(value);
    } else if (Array.isArray(value)) {
      for (const child of value) stack.push({ value: child, key });
    } else if (value && typeof value === 'object') {
      for (const [childKey, child] of Object.entries(value)) if (!notContent.has(childKey)) stack.push({ value: child, key: childKey });
    }
  }
}
