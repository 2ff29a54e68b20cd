import type { VideoQuote } from '../../domain/billing/quote.ts';
import type { TokenQuote } from '../../domain/billing/token-quote.ts';
import { Failure } from '../../domain/failure.ts';
import { formatMicros, parseMicros } from '../../shared/money.ts';
import type { PublicComponents } from '../../types.ts';
import { priceRuleToWire } from './price-rule.ts';

export const BILLED_SECONDS_RULE =
  "Settled once the provider delivers: the delivered duration rounded to the nearest whole second (halves up, at least one), at the delivered resolution tier's price of this version, free seconds first. A task that fails or is cancelled is charged nothing.";

export const videoQuoteToWire = (quote: VideoQuote, currency: string): PublicComponents['schemas']['VideoQuote'] => ({
  object: 'video.quote',
  model: quote.model,
  price_version: quote.priceVersion,
  price_rule: priceRuleToWire(quote.priceRule),
  currency,
  seconds: quote.seconds,
  resolution: quote.resolution,
  ratio: quote.ratio,
  size: quote.size,
  per_second: formatMicros(parseMicros(quote.perSecond)),
  cost: formatMicros(quote.cost),
  free_units: Number(quote.freeUnits),
  free_unit: quote.freeUnit as PublicComponents['schemas']['VideoQuote']['free_unit'],
  hold: formatMicros(quote.hold),
  billed_seconds_rule: BILLED_SECONDS_RULE,
});

export const TOKEN_BILLING_RULE =
  'Charged by the usage the provider reports (estimated where it reports none): every token line at the prices of the long-context tier its reported input (input, cache writes and cache reads) is strictly above, times the premium of the service tier it reports, rounded up once to the micro-unit; the rest of the hold is released.';

export const tokenQuoteToWire = (quote: TokenQuote, currency: string): PublicComponents['schemas']['TokenQuote'] => ({
  object: 'token.quote',
  model: quote.model,
  price_version: quote.priceVersion,
  price_rule: priceRuleToWire(quote.priceRule),
  currency,
  input_tokens: quote.inputTokens,
  max_output_tokens: quote.maxOutputTokens,
  price_tier: quote.holdTier
    ? { index: quote.holdTier.index, above_input_tokens: quote.holdTier.above_input_tokens, input_tokens: quote.holdTier.input_tokens }
    : null,
  cost: formatMicros(quote.cost),
  free_units: Number(quote.freeUnits),
  free_unit: quote.freeUnit as PublicComponents['schemas']['TokenQuote']['free_unit'],
  hold: formatMicros(quote.hold),
  billing_rule: TOKEN_BILLING_RULE,
});

/** A token endpoint's `dry_run` answer: the quote, or the failure the request itself would get. */
export const tokenQuoteReply = (quote: TokenQuote | Failure, currency: string) =>
  quote instanceof Failure ? quote : { status: 200, body: tokenQuoteToWire(quote, currency) };
