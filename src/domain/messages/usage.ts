// Follows an Anthropic message's usage as the provider reports it, and tallies what the client
// received for the estimate when it reports none. Stream usage values are cumulative totals: each
// message_delta overwrites, never adds, and fields it leaves out or sends as null keep their
// earlier value. Counts only: no delivered text is kept.
import type { TokenPrice } from '../../catalogue/types.ts';
import { pricedTier, pricedTokenLines, type MultiplierName, type PricedTokens } from '../../pricing/priced.ts';
import { estimateJsonTokens, TextTally } from '../passthrough/estimate.ts';
import { estimateReason, mergeReported, reportedCount } from '../passthrough/reported.ts';
import type { Bill } from '../passthrough/protocol.ts';

const record = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Delta and block fields that are not content the model produced. */
const NOT_CONTENT = new Set(['type', 'signature', 'id', 'index']);

export class AnthropicUsage {
  private input: number | undefined;
  private output: number | undefined;
  private cacheWrite: number | undefined;
  private cacheWrite1h: number | undefined;
  private cacheRead: number | undefined;
  private webSearch: number | undefined;
  private webFetch: number | undefined;
  private serviceTier: string | undefined;
  private speed: string | undefined;
  private finalSeen = false;
  private reported: Record<string, unknown> | undefined;
  private delivered = new TextTally();
  /** A JSON answer's content blocks, estimated only if the provider reported no output count. */
  private deliveredJson: unknown[] = [];

  constructor(
    private readonly inputEstimate: number,
    private readonly maxOutputTokens: number,
    /** The request asked for fast mode (`speed: "fast"`). */
    private readonly fastRequested: boolean,
  ) {}

  /** A usage object from message_start, message_delta or a JSON answer (`final`: the last word). */
  observe(usage: unknown, final: boolean): void {
    const u = record(usage);
    if (!u) return;
    this.reported = mergeReported(this.reported, u);
    this.input = reportedCount(u.input_tokens) ?? this.input;
    this.output = reportedCount(u.output_tokens) ?? this.output;
    this.cacheWrite = reportedCount(u.cache_creation_input_tokens) ?? this.cacheWrite;
    this.cacheRead = reportedCount(u.cache_read_input_tokens) ?? this.cacheRead;
    const creation = record(u.cache_creation);
    if (creation) this.cacheWrite1h = reportedCount(creation.ephemeral_1h_input_tokens) ?? this.cacheWrite1h;
    const tools = record(u.server_tool_use);
    if (tools) {
      this.webSearch = reportedCount(tools.web_search_requests) ?? this.webSearch;
      this.webFetch = reportedCount(tools.web_fetch_requests) ?? this.webFetch;
    }
    if (typeof u.service_tier === 'string') this.serviceTier = u.service_tier;
    if (typeof u.speed === 'string') this.speed = u.speed;
    if (final && reportedCount(u.output_tokens) !== undefined) this.finalSeen = true;
  }

  /** Content the client received in a stream: text, tool JSON, thinking, or any unknown delta's text. */
  deliveredDelta(delta: unknown): void {
    const d = record(delta);
    if (!d) return;
    for (const [key, value] of Object.entries(d)) if (typeof value === 'string' && !NOT_CONTENT.has(key)) this.delivered.add(value);
  }

  /** The content blocks of a JSON answer (any block type). */
  deliveredBlocks(blocks: unknown): void {
    if (Array.isArray(blocks)) this.deliveredJson.push(...blocks);
  }

  outputTokens(): number {
    if (this.finalSeen) return this.output!;
    const fromJson = this.deliveredJson.length ? estimateJsonTokens(this.deliveredJson.map((b) => stripMeta(b))) : 0;
    return Math.max(this.delivered.tokens() + fromJson, this.output ?? 0);
  }

  /**
   * The bill. Input comes from the provider when it said, else from the request estimate; output
   * from the last cumulative count when the provider reported one at the end, else estimated from
   * what was delivered. Output is never billed past the request's max_tokens.
   */
  bill(price: TokenPrice): Bill {
    const estimated = this.input === undefined || !this.finalSeen;
    const reported = this.outputTokens();
    const output = Math.min(reported, this.maxOutputTokens);
    const multiplier = this.multiplier(price);
    const usage = {
      input_tokens: this.input ?? this.inputEstimate,
      output_tokens: output,
      cache_creation_input_tokens: this.cacheWrite ?? 0,
      cache_creation_1h_input_tokens: this.cacheWrite1h ?? 0,
      cache_read_input_tokens: this.cacheRead ?? 0,
      web_search_requests: this.webSearch ?? 0,
      web_fetch_requests: this.webFetch ?? 0,
      ...(multiplier ? { multiplier: multiplier.name } : {}),
    } satisfies PricedTokens;
    const detail: Record<string, unknown> = {};
    if (this.cacheWrite1h) detail.cache_write_1h_tokens = this.cacheWrite1h;
    if (this.webSearch) detail.web_search_requests = this.webSearch;
    if (this.webFetch) detail.web_fetch_requests = this.webFetch;
    if (this.serviceTier) detail.service_tier = this.serviceTier;
    if (multiplier) detail.multiplier = multiplier.label;
    if (reported > output) detail.output_tokens_reported = reported;
    const tier = pricedTier(price, usage);
    if (tier) detail.price_tier = tier;
    return {
      lines: pricedTokenLines(price, usage),
      priced: { tokens: usage },
      estimated,
      log: {
        input_tokens: usage.input_tokens,
        output_tokens: output,
        cache_read_tokens: usage.cache_read_input_tokens,
        cache_write_tokens: usage.cache_creation_input_tokens,
        usage_detail: Object.keys(detail).length ? detail : null,
        upstream_usage: this.reported ?? null,
        estimate_reason: estimateReason([
          this.input === undefined && 'input_not_reported',
          !this.finalSeen && (this.output === undefined ? 'output_not_reported' : 'output_not_final'),
        ]),
      },
    };
  }

  /** Fast mode and the priority tier cost more when the catalogue prices them. */
  private multiplier(price: TokenPrice): { name: MultiplierName; label: string } | undefined {
    const fast = this.speed === 'fast' || (this.speed === undefined && this.fastRequested);
    if (fast && price.multipliers?.fast) return { name: 'fast', label: `fast x${price.multipliers.fast}` };
    if (this.serviceTier === 'priority' && price.multipliers?.priority) return { name: 'priority', label: `priority x${price.multipliers.priority}` };
    return undefined;
  }
}

/** A block's content without its ids and signatures. */
function stripMeta(block: unknown): unknown {
  const b = record(block);
  if (!b) return block;
  return Object.fromEntries(Object.entries(b).filter(([key]) => !NOT_CONTENT.has(key)));
}
