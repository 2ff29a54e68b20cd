import type { ResolvedModel } from '../../catalogue/store.ts';
import { priceAtTier } from '../../pricing/tiers.ts';
import { formatMicros, parseMicros } from '../../shared/money.ts';
import type { WireModel, WireModelPricing } from '../../types.ts';
import { BILLED_SECONDS_RULE } from './quotes.ts';

/** OpenAI's Model object: `created` falls back to a fixed value so lists are stable across restarts. */
export const modelToWire = (model: ResolvedModel, serviceName: string, name = model.id): WireModel => ({
  id: name,
  object: 'model',
  created: model.created ?? 1735689600,
  owned_by: serviceName,
  group: model.group,
});

const money = (decimal: string): string => formatMicros(parseMicros(decimal));
const optionalMoney = (decimal: string | undefined): string | null => (decimal === undefined ? null : money(decimal));

export function pricingToWire(model: ResolvedModel): WireModelPricing {
  const price = model.price;
  return {
    model: model.id,
    group: model.group,
    price_version: model.priceVersion.version,
    context_window: model.context_window ?? null,
    free_quota: model.free_quota ? { amount: model.free_quota.amount, unit: model.free_quota.unit, period: model.free_quota.period } : null,
    price:
      'per_second' in price
        ? {
            type: 'video_seconds',
            per_second: Object.fromEntries(Object.entries(price.per_second).map(([tier, p]) => [tier, money(p)])),
            seconds: model.video?.seconds ?? [],
            billed_seconds_rule: BILLED_SECONDS_RULE,
          }
        : {
            type: 'tokens',
            input_per_mtok: money(price.input_per_mtok),
            output_per_mtok: money(price.output_per_mtok),
            cache_read_per_mtok: optionalMoney(price.cache_read_per_mtok),
            cache_write_per_mtok: optionalMoney(price.cache_write_per_mtok),
            cache_write_1h_per_mtok: optionalMoney(price.cache_write_1h_per_mtok),
            web_search_per_1k_requests: optionalMoney(price.web_search_per_1k_requests),
            web_fetch_per_1k_requests: optionalMoney(price.web_fetch_per_1k_requests),
            multipliers: { ...price.multipliers },
            tiers: (price.tiers ?? []).map((tier, index) => {
              // The prices charged above the threshold: cache prices a tier leaves out, derived.
              const at = priceAtTier(price, index);
              return {
                above_input_tokens: tier.above_input_tokens,
                input_per_mtok: money(at.input_per_mtok),
                output_per_mtok: money(at.output_per_mtok),
                cache_read_per_mtok: optionalMoney(at.cache_read_per_mtok),
                cache_write_per_mtok: optionalMoney(at.cache_write_per_mtok),
                cache_write_1h_per_mtok: optionalMoney(at.cache_write_1h_per_mtok),
              };
            }),
          },
  };
}
