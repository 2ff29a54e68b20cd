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
  const stack: Array<{ node: unknown; key: string | undefined }> = [{ node: value, key: undefined }];
  while (stack.length > 0) {
    const { node, key } = stack.pop()!;
    if (typeof node === 'string') {
      if (key === 'data' || node.startsWith('data:')) media++;
      else tally.add(node);
    } else if (Array.isArray(node)) {
      for (const child of node) stack.push({ node: child, key: undefined });
    } else if (node && typeof node === 'object') {
      for (const [childKey, child] of Object.entries(node)) {
        tally.add(childKey);
        stack.push({ node: child, key: childKey });
      }
    } else if (typeof node === 'number' || typeof node === 'boolean') tally.add(String(node));
  }
  return tally.tokens() + media * MEDIA_TOKENS;
}
