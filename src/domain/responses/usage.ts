// Follows a response's usage as the provider reports it (`response.usage` of the terminal event,
// or of a JSON answer), and tallies what the client received for the estimate when it reports
// none. OpenAI's rules: `input_tokens` includes the cached tokens and the cache writes
// (`input_tokens_details.cached_tokens`, `.cache_write_tokens`), and `output_tokens` includes
// the reasoning tokens; each part is billed at its own rate, and the tier the answer reports
// (`service_tier`) applies its multiplier. Counts only: no delivered text is kept.
import type { TokenPrice } from '../../catalogue/types.ts';
import { pricedTier, pricedTokenLines, type MultiplierName, type PricedTokens } from '../../pricing/priced.ts';
import { TextTally } from '../passthrough/estimate.ts';
import { estimateReason, mergeReported, reportedCount } from '../passthrough/reported.ts';
import type { Bill } from '../passthrough/protocol.ts';
import { isRecord } from './fields.ts';

/** Keys of output items that are not text the model produced (ids, kinds, states, opaque blobs). */
const NOT_CONTENT = new Set(['id', 'type', 'status', 'role', 'call_id', 'item_id', 'encrypted_content', 'annotations', 'logprobs', 'index']);

/** The catalogue multiplier a reported tier pays (`fast` is reported as `priority`). */
export function tierMultiplier(price: TokenPrice, tier: string | undefined): { name: string; key: MultiplierName; value: string } | undefined {
  const m = price.multipliers;
  if (!m || !tier) return undefined;
  if ((tier === 'priority' || tier === 'fast') && m.priority) return { name: 'priority', key: 'priority', value: m.priority };
  if (tier === 'flex' && m.flex) return { name: 'flex', key: 'flex', value: m.flex };
  if (tier === 'ultrafast' && m.ultrafast) return { name: 'ultrafast', key: 'ultrafast', value: m.ultrafast };
  if (tier === 'ultrafast' && m.priority) return { name: 'ultrafast', key: 'priority', value: m.priority };
  return undefined;
}

export class ResponsesUsage {
  private input: number | undefined;
  private output: number | undefined;
  private cached = 0;
  private cacheWrite = 0;
  private reasoning = 0;
  private serviceTier: string | undefined;
  /** The usage object as the provider reported it, for the receipt. */
  private reportedUsage: Record<string, unknown> | undefined;
  private delivered = new TextTally();

  constructor(
    private readonly inputEstimate: number,
    /** The request's output bound: never billed past. */
    private readonly maxOutputTokens: number,
  ) {}

  /** A Response object (a JSON answer, or the `response` of a lifecycle event): its usage and tier. */
  observeResponse(response: Record<string, unknown>): void {
    if (typeof response.service_tier === 'string') this.serviceTier = response.service_tier;
    const usage = response.usage;
    if (!isRecord(usage)) return;
    this.reportedUsage = mergeReported(this.reportedUsage, usage);
    const input = reportedCount(usage.input_tokens);
    const output = reportedCount(usage.output_tokens);
    if (input === undefined || output === undefined) return;
    this.input = input;
    this.output = output;
    const inDetails = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
    const outDetails = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : {};
    this.cached = reportedCount(inDetails.cached_tokens) ?? 0;
    this.cacheWrite = reportedCount(inDetails.cache_write_tokens) ?? 0;
    this.reasoning = reportedCount(outDetails.reasoning_tokens) ?? 0;
  }

  /** A streamed piece of output (a `.delta` string). */
  deliveredText(text: string): void {
    this.delivered.add(text);
  }

  /** Text the client received in output items (a JSON answer): text, arguments, summaries, any new field. */
  deliveredItems(node: unknown): void {
    const stack: Array<{ value: unknown; key: string | undefined }> = [{ value: node, key: undefined }];
    while (stack.length > 0) {
      const { value, key } = stack.pop()!;
      if (typeof value === 'string') {
        if (!NOT_CONTENT.has(key ?? '')) this.delivered.add(value);
      } else if (Array.isArray(value)) {
        for (const child of value) stack.push({ value: child, key });
      } else if (isRecord(value)) {
        for (const [childKey, child] of Object.entries(value)) if (!NOT_CONTENT.has(childKey)) stack.push({ value: child, key: childKey });
      }
    }
  }

  /** Whether the provider reported usage. */
  reported(): boolean {
    return this.input !== undefined;
  }

  /** Input plus output as reported: the context a request chained to this response carries. */
  contextTokens(): number | undefined {
    return this.input === undefined || this.output === undefined ? undefined : this.input + this.output;
  }

  /** Output tokens: the provider's count once it gave one, else the estimate of what was delivered. */
  outputTokens(): number {
    return this.output ?? this.delivered.tokens();
  }

  /**
   * The bill: reported counts, or the request's input estimate and the delivered output's estimate
   * (marked estimated). Output is capped at the request's bound; cached and cache-write tokens
   * are never more than the input.
   */
  bill(price: TokenPrice): Bill {
    const estimated = this.input === undefined;
    const input = this.input ?? this.inputEstimate;
    const cached = Math.min(this.cached, input);
    const writes = Math.min(this.cacheWrite, input - cached);
    const reported = this.outputTokens();
    const output = Math.min(reported, this.maxOutputTokens);
    const multiplier = tierMultiplier(price, this.serviceTier);
    const detail: Record<string, unknown> = {};
    if (cached > 0 || writes > 0) detail.input_tokens = input;
    if (this.reasoning) detail.reasoning_tokens = this.reasoning;
    if (this.serviceTier && this.serviceTier !== 'default') detail.service_tier = this.serviceTier;
    if (multiplier) detail.multiplier = `${multiplier.name} x${multiplier.value}`;
    if (reported > output) detail.output_tokens_reported = reported;
    const priced: PricedTokens = {
      input_tokens: input - cached - writes,
      cache_creation_input_tokens: writes,
      cache_read_input_tokens: cached,
      output_tokens: output,
      ...(multiplier ? { multiplier: multiplier.key } : {}),
    };
    const tier = pricedTier(price, priced);
    if (tier) detail.price_tier = tier;
    return {
      lines: pricedTokenLines(price, priced),
      priced: { tokens: priced },
      estimated,
      log: {
        input_tokens: input - cached - writes,
        output_tokens: output,
        cache_read_tokens: cached,
        cache_write_tokens: writes,
        usage_detail: Object.keys(detail).length ? detail : null,
        // The Response's service_tier sits beside its usage object; the receipt shows them together.
        upstream_usage: this.reportedUsage ? { ...this.reportedUsage, ...(this.serviceTier ? { service_tier: this.serviceTier } : {}) } : null,
        estimate_reason: estimateReason([this.input === undefined && 'input_not_reported', this.output === undefined && 'output_not_reported']),
      },
    };
  }
}
