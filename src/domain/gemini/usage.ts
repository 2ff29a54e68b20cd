// Follows a Gemini answer's `usageMetadata` as the provider reports it, and tallies what the client
// received for the estimate when it reports none. Google's rules: `promptTokenCount` includes the
// cached tokens (`cachedContentTokenCount`, billed at the cache-read price), tool-use prompts
// (`toolUsePromptTokenCount`) are apart from it and billed as input, and both the candidates'
// tokens and the thoughts (`thoughtsTokenCount`) are output. In a stream every chunk's counts are
// totals so far: each report overwrites, and the last chunk's are the answer's. Counts only: no
// delivered text is kept.
import type { TokenPrice } from '../../catalogue/types.ts';
import { pricedTier, pricedTokenLines, type PricedTokens } from '../../pricing/priced.ts';
import { tallyContent, TextTally } from '../passthrough/estimate.ts';
import type { Bill } from '../passthrough/protocol.ts';
import { estimateReason, mergeReported, reportedCount } from '../passthrough/reported.ts';
import { isRecord } from './fields.ts';

/** Part fields that are not content the model produced (signatures, ids, flags). */
const NOT_CONTENT = new Set(['thoughtSignature', 'thought_signature', 'thought', 'id', 'mimeType', 'mime_type', 'role', 'finishReason', 'index']);

export class GeminiUsage {
  private prompt: number | undefined;
  private cached: number | undefined;
  private candidates: number | undefined;
  private thoughts: number | undefined;
  private toolUse: number | undefined;
  private reported: Record<string, unknown> | undefined;
  private delivered = new TextTally();

  constructor(
    private readonly inputEstimate: number,
    /** The request's output bound (maxOutputTokens x candidateCount): never billed past. */
    private readonly maxOutputTokens: number,
  ) {}

  /** A `usageMetadata` of a JSON answer or of a stream chunk (totals so far, never a delta). */
  observe(usage: unknown): void {
    if (!isRecord(usage)) return;
    this.reported = mergeReported(this.reported, usage);
    this.prompt = reportedCount(usage.promptTokenCount) ?? this.prompt;
    this.cached = reportedCount(usage.cachedContentTokenCount) ?? this.cached;
    this.candidates = reportedCount(usage.candidatesTokenCount) ?? this.candidates;
    this.thoughts = reportedCount(usage.thoughtsTokenCount) ?? this.thoughts;
    this.toolUse = reportedCount(usage.toolUsePromptTokenCount) ?? this.toolUse;
  }

  /** The text of the parts a candidate carried (text, thoughts, function call names and arguments, code). */
  deliveredContent(candidate: unknown): void {
    const content = isRecord(candidate) ? candidate.content : undefined;
    const parts = isRecord(content) && Array.isArray(content.parts) ? content.parts : [];
    tallyContent(this.delivered, parts, NOT_CONTENT);
  }

  /** Output tokens: the provider's count once it gave one, else the estimate of what was delivered. */
  outputTokens(): number {
    if (this.candidates === undefined && this.thoughts === undefined) return this.delivered.tokens();
    return (this.candidates ?? 0) + (this.thoughts ?? 0);
  }

  /**
   * The bill. Reported counts where the provider gave them, the request's input estimate and the
   * delivered output's estimate where it did not (then marked estimated). Output is capped at the
   * request's bound; cached tokens are never more than the prompt.
   */
  bill(price: TokenPrice): Bill {
    const outputReported = this.candidates !== undefined || this.thoughts !== undefined;
    const prompt = this.prompt ?? this.inputEstimate;
    const cached = Math.min(this.cached ?? 0, prompt);
    const toolUse = this.toolUse ?? 0;
    const reported = this.outputTokens();
    const output = Math.min(reported, this.maxOutputTokens);
    const detail: Record<string, unknown> = {};
    if (cached > 0) detail.prompt_tokens = prompt;
    if (toolUse > 0) detail.tool_use_prompt_tokens = toolUse;
    if (this.thoughts) detail.thoughts_tokens = this.thoughts;
    if (reported > output) detail.output_tokens_reported = reported;
    const input = prompt - cached + toolUse;
    const priced: PricedTokens = { input_tokens: input, cache_read_input_tokens: cached, output_tokens: output };
    const tier = pricedTier(price, priced);
    if (tier) detail.price_tier = tier;
    return {
      lines: pricedTokenLines(price, priced),
      priced: { tokens: priced },
      estimated: this.prompt === undefined || !outputReported,
      log: {
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: cached,
        cache_write_tokens: 0,
        usage_detail: Object.keys(detail).length ? detail : null,
        upstream_usage: this.reported ?? null,
        estimate_reason: estimateReason([this.prompt === undefined && 'input_not_reported', !outputReported && 'output_not_reported']),
      },
    };
  }
}
