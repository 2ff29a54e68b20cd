// Token estimates for when a provider reports no usage, and for the reservation's upper bound.
// A character-class heuristic (no tokenizer download): CJK characters count about one token each,
// other text about four characters a token. It errs high rather than low.

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/gu;

export function estimateTokens(text: string): number {
  if (!text) return 0;
  const cjk = text.match(CJK)?.length ?? 0;
  const rest = text.length - cjk;
  return cjk + Math.ceil(rest / 4);
}

/** Everything in a request that the model reads: system, messages (text, tool JSON), tools. */
export function estimateInputTokens(body: { system?: unknown; messages?: unknown; tools?: unknown }): number {
  let total = 0;
  const walk = (node: unknown, key?: string): void => {
    if (typeof node === 'string') {
      // Base64 media is billed by its pixels, not its characters; count a flat allowance.
      total += key === 'data' ? 1_600 : estimateTokens(node);
    } else if (Array.isArray(node)) node.forEach((n) => walk(n));
    else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, k);
  };
  walk(body.system);
  walk(body.messages);
  if (body.tools) total += estimateTokens(JSON.stringify(body.tools));
  // Per-message framing overhead.
  const messages = Array.isArray(body.messages) ? body.messages.length : 0;
  return total + 4 * messages + 8;
}
