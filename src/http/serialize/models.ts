import type { ResolvedModel } from '../../catalogue/store.ts';
import type { TokenPrice, VideoPrice } from '../../catalogue/types.ts';
import { priceAtTier } from '../../pricing/tiers.ts';
import { formatMicros, parseMicros } from '../../shared/money.ts';
import type { PublicComponents, WireModel, WireModelPricing } from '../../types.ts';
import { priceRuleToWire } from './price-rule.ts';
import { BILLED_SECONDS_RULE } from './quotes.ts';

/** OpenAI's Model object: `created` falls back to a fixed value so lists are stable across restarts. */
export const modelToWire = (model: ResolvedModel, serviceName: string, name = model.id): WireModel => ({
  id: name,
  object: 'model',
  created: model.created ?? DEFAULT_CREATED,
  owned_by: serviceName,
  group: model.group,
});

type AnthropicModelInfo = PublicComponents['schemas']['AnthropicModelInfo'];
type AnthropicModelList = PublicComponents['schemas']['AnthropicModelList'];

/** The `created` the catalogue falls back to (2025-01-01), in both shapes. */
const DEFAULT_CREATED = 1735689600;

/**
 * Anthropic's shape is asked for by Anthropic's clients: they send `anthropic-version` (the SDK,
 * Claude Code's discovery) or a key as `x-api-key`. Everyone else gets OpenAI's.
 */
export const wantsAnthropicShape = (headers: Record<string, string | string[] | undefined>): boolean =>
  headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined;

/** Anthropic's ModelInfo: RFC 3339 `created_at`, the display name, the limits the catalogue states. */
export const modelToAnthropic = (model: ResolvedModel, name = model.id): AnthropicModelInfo => ({
  type: 'model',
  id: name,
  display_name: model.display_name ?? name,
  created_at: new Date((model.created ?? DEFAULT_CREATED) * 1000).toISOString().replace(/\.000Z$/, 'Z'),
  max_input_tokens: model.context_window ?? null,
  max_tokens: model.max_output_tokens ?? null,
});

/** One page of Anthropic's list: `limit` items after `after_id` (or before `before_id`); an unknown cursor is an empty page. */
export function anthropicPage(all: AnthropicModelInfo[], page: { limit: number; afterId?: string; beforeId?: string }): AnthropicModelList {
  let items: AnthropicModelInfo[];
  let hasMore: boolean;
  if (page.beforeId !== undefined) {
    const end = all.findIndex((m) => m.id === page.beforeId);
    items = end < 0 ? [] : all.slice(Math.max(0, end - page.limit), end);
    hasMore = end - page.limit > 0;
  } else {
    const start = page.afterId === undefined ? 0 : all.findIndex((m) => m.id === page.afterId) + 1;
    items = start === 0 && page.afterId !== undefined ? [] : all.slice(start, start + page.limit);
    hasMore = items.length > 0 && start + page.limit < all.length;
  }
  return { data: items, has_more: hasMore, first_id: items[0]?.id ?? null, last_id: items.at(-1)?.id ?? null };
}

const money = (decimal: string): string => formatMicros(parseMicros(decimal));
const optionalMoney = (decimal: string | undefined): string | null => (decimal === undefined ? null : money(decimal));

export const pricingToWire = (model: ResolvedModel): WireModelPricing => ({
  model: model.id,
  group: model.group,
  price_version: model.priceVersion.version,
  price_rule: priceRuleToWire(model.pricing),
  context_window: model.context_window ?? null,
  free_quota: model.free_quota ? { amount: model.free_quota.amount, unit: model.free_quota.unit, period: model.free_quota.period } : null,
  price: priceToWire(model.price, model),
});

/** A price (a model's, or a route's cost) as the price list states it: derived tier prices filled in. */
export function priceToWire(price: TokenPrice | VideoPrice, model: Pick<ResolvedModel, 'video'>): WireModelPricing['price'] {
  return 'per_second' in price
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
      };
}
