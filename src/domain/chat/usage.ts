// Follows a chat completion's usage as the provider reports it, and tallies what the client
// received for the estimate when it reports none. OpenAI's rules: `prompt_tokens` includes the
// cached tokens (`prompt_tokens_details.cached_tokens`), and `completion_tokens` includes the
// reasoning tokens, so cached tokens are billed at the cache-read price and the rest of the prompt
// at the input price; reasoning is billed as output. Counts only: no delivered text is kept.
import type { TokenPrice } from '../../catalogue/types.ts';
import { pricedTier, pricedTokenLines, type PricedTokens } from '../../pricing/priced.ts';
import { tallyContent, TextTally } from '../passthrough/estimate.ts';
import { estimateReason, mergeReported, reportedCount } from '../passthrough/reported.ts';
import type { Bill } from '../passthrough/protocol.ts';
import { isRecord } from './fields.ts';

/** Fields of a delta or message that are not text the model produced. */
const NOT_CONTENT = new Set(['role', 'id', 'type', 'index', 'finish_reason', 'logprobs', 'annotations', 'expires_at']);

export class ChatUsage {
  private prompt: number | undefined;
  private completion: number | undefined;
  private cached: number | undefined;
  private reasoning: number | undefined;
  private serviceTier: string | undefined;
  private reported: Record<string, unknown> | undefined;
  private delivered = new TextTally();

  constructor(
    private readonly inputEstimate: number,
    /** The request's output bound (per-choice limit x n): never billed past. */
    private readonly maxOutputTokens: number,
  ) {}

  /** A `usage` object of a JSON answer or of the stream's usage chunk (a total, never a delta). */
  observe(usage: unknown): void {
    if (!isRecord(usage)) return;
    this.reported = mergeReported(this.reported, usage);
    this.prompt = reportedCount(usage.prompt_tokens) ?? this.prompt;
    this.completion = reportedCount(usage.completion_tokens) ?? this.completion;
    if (isRecord(usage.prompt_tokens_details)) this.cached = reportedCount(usage.prompt_tokens_details.cached_tokens) ?? this.cached;
    if (isRecord(usage.completion_tokens_details)) this.reasoning = reportedCount(usage.completion_tokens_details.reasoning_tokens) ?? this.reasoning;
  }

  /** The answer's `service_tier` (billed at the priority premium when the catalogue prices one). */
  tier(value: unknown): void {
    if (typeof value === 'string') this.serviceTier = value;
  }

  /**
   * Text the client received: a stream delta or a JSON answer's message, any fields (content,
   * refusal, tool call names and arguments, reasoning_content, audio transcripts...).
   */
  deliveredContent(node: unknown): void {
    tallyContent(this.delivered, node, NOT_CONTENT);
  }

  /** Output tokens: the provider's count once it gave one, else the estimate of what was delivered. */
  outputTokens(): number {
    return this.completion ?? this.delivered.tokens();
  }

  /**
   * The bill. Reported counts where the provider gave them, the request's input estimate and the
   * delivered output's estimate where it did not (then marked estimated). Output is capped at the
   * request's bound; cached tokens are never more than the prompt.
   */
  bill(price: TokenPrice): Bill {
    const estimated = this.prompt === undefined || this.completion === undefined;
    const prompt = this.prompt ?? this.inputEstimate;
    const cached = Math.min(this.cached ?? 0, prompt);
    const reported = this.outputTokens();
    const output = Math.min(reported, this.maxOutputTokens);
    const multiplier = this.serviceTier === 'priority' && price.multipliers?.priority ? price.multipliers.priority : undefined;
    const detail: Record<string, unknown> = {};
    if (cached > 0) detail.prompt_tokens = prompt;
    if (this.reasoning) detail.reasoning_tokens = this.reasoning;
    if (this.serviceTier && this.serviceTier !== 'default') detail.service_tier = this.serviceTier;
    if (multiplier) detail.multiplier = `priority x${multiplier}`;
    if (reported > output) detail.output_tokens_reported = reported;
    const priced: PricedTokens = {
      input_tokens: prompt - cached,
      cache_read_input_tokens: cached,
      output_tokens: output,
      ...(multiplier ? { multiplier: 'priority' as const } : {}),
    };
    const tier = pricedTier(price, priced);
    if (tier) detail.price_tier = tier;
    return {
      lines: pricedTokenLines(price, priced),
      priced: { tokens: priced },
      estimated,
      log: {
        input_tokens: prompt - cached,
        output_tokens: output,
        cache_read_tokens: cached,
        cache_write_tokens: 0,
        usage_detail: Object.keys(detail).length ? detail : null,
        // The answer's service_tier sits beside its usage object; the receipt shows them together.
        upstream_usage: this.reported ? { ...this.reported, ...(this.serviceTier ? { service_tier: this.serviceTier } : {}) } : null,
        estimate_reason: estimateReason([this.prompt === undefined && 'input_not_reported', this.completion === undefined && 'output_not_reported']),
      },
    };
  }
}
