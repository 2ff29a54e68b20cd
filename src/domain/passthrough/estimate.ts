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

/** Base64 media is billed by its pixels or length, not its characters: a flat allowance each. */
const MEDIA_TOKENS = 1_600;

/**
 * Tokens of every string in a JSON value (keys of objects included: tool schemas are read by the
 * model). Strings under a `data` key or in a data: URL count as one media item.
 */
export function estimateJsonTokens(value: unknown): number {
  const tally = new TextTally();
  let media = 0;
  // Two plain stacks rather than an object per value: bodies of millions of small values.
  const nodes: unknown[] = [value];
  const keys: Array<string | undefined> = [undefined];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const key = keys.pop();
    if (typeof node === 'string') {
      if (key === 'data' || node.startsWith('data:')) media++;
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
      for (const childKey in node) {
        if (!Object.hasOwn(node, childKey)) continue;
        tally.add(childKey);
        nodes.push((node as Record<string, unknown>)[childKey]);
        keys.push(childKey);
      }
    } else if (typeof node === 'number' || typeof node === 'boolean') tally.addPlain(String(node).length);
  }
  return tally.tokens() + media * MEDIA_TOKENS;
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
