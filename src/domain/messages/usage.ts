import { estimateTokens } from './estimate.ts';

export interface MessageUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined);

/**
 * Follows a message's usage as the provider reports it. Stream usage values are cumulative
 * totals: each message_delta overwrites, never adds. Fields a delta leaves out (or sends as null)
 * keep their earlier value. What the client received is tallied too, for the estimate.
 */
export class UsageTracker {
  private input: number | undefined;
  private output: number | undefined;
  private cacheWrite: number | undefined;
  private cacheRead: number | undefined;
  private finalSeen = false;
  private deliveredChars = '';

  /** A usage object from message_start, message_delta or a JSON response. */
  observe(usage: unknown, final: boolean): void {
    if (!usage || typeof usage !== 'object') return;
    const u = usage as Record<string, unknown>;
    this.input = count(u.input_tokens) ?? this.input;
    this.output = count(u.output_tokens) ?? this.output;
    this.cacheWrite = count(u.cache_creation_input_tokens) ?? this.cacheWrite;
    this.cacheRead = count(u.cache_read_input_tokens) ?? this.cacheRead;
    if (final && count(u.output_tokens) !== undefined) this.finalSeen = true;
  }

  /** Content the client received: text, tool-use JSON, thinking. */
  delivered(delta: unknown): void {
    if (!delta || typeof delta !== 'object') return;
    const d = delta as Record<string, unknown>;
    for (const key of ['text', 'partial_json', 'thinking']) if (typeof d[key] === 'string') this.deliveredChars += d[key];
  }

  deliveredContent(blocks: unknown): void {
    if (Array.isArray(blocks)) for (const block of blocks) this.delivered(block && typeof block === 'object' && 'input' in block ? { partial_json: JSON.stringify((block as { input: unknown }).input) } : block);
  }

  /**
   * Final usage. Input comes from the provider when it said, else from the request estimate;
   * output from the last cumulative count when the provider reported one at the end, else it is
   * estimated from what was delivered (never below what the provider had already counted).
   */
  result(inputEstimate: number): { usage: MessageUsage; estimated: boolean } {
    const outputEstimate = estimateTokens(this.deliveredChars);
    const estimated = this.input === undefined || !this.finalSeen;
    return {
      usage: {
        input_tokens: this.input ?? inputEstimate,
        output_tokens: this.finalSeen ? this.output! : Math.max(outputEstimate, this.output ?? 0),
        cache_creation_input_tokens: this.cacheWrite ?? 0,
        cache_read_input_tokens: this.cacheRead ?? 0,
      },
      estimated,
    };
  }
}
