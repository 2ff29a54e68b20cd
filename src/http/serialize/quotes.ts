import type { VideoQuote } from '../../domain/billing/quote.ts';
import { formatMicros, parseMicros } from '../../shared/money.ts';
import type { PublicComponents } from '../../types.ts';

export const BILLED_SECONDS_RULE =
  "Settled once the provider delivers: the delivered duration rounded to the nearest whole second (halves up, at least one), at the delivered resolution tier's price of this version, free seconds first. A task that fails or is cancelled is charged nothing.";

export const videoQuoteToWire = (quote: VideoQuote, currency: string): PublicComponents['schemas']['VideoQuote'] => ({
  object: 'video.quote',
  model: quote.model,
  price_version: quote.priceVersion,
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
