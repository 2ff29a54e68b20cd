// A request's usage as prices read it: cost.ts makes its cost lines, tiers.ts its long-context tier.

export interface TokenUsage {
  input_tokens: number | bigint;
  output_tokens: number | bigint;
  /** All cache writes, 1-hour ones included. */
  cache_creation_input_tokens?: number | bigint | null;
  cache_read_input_tokens?: number | bigint | null;
  /** The part of the cache writes that live one hour (priced apart when the catalogue says). */
  cache_creation_1h_input_tokens?: number | bigint | null;
  web_search_requests?: number | bigint | null;
  web_fetch_requests?: number | bigint | null;
  /** Premium multiplier in millionths applied to token lines (fast mode, priority tier). */
  multiplierMicros?: bigint;
}
