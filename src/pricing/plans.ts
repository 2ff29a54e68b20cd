// Which price a customer pays for a model: its own override, then its plan's override of the exact
// model, then the plan's most specific pattern, then the plan's multiplier, then the list price.
// The first rule that names the model decides, alone: every override and multiplier starts from
// the catalogue's list price (rules never compose). A pure function of (model, plan, overrides),
// used at hold, settle (through the version the hold froze), quote and listing alike.
import type { TokenPrice, VideoPrice } from '../catalogue/types.ts';
import { isVideoPrice } from '../catalogue/types.ts';
import { compileGlob, isGlob, mostSpecific, type Glob } from '../shared/glob.ts';
import { formatMicros, parseMicros } from '../shared/money.ts';
import type { PriceRule } from '../catalogue/resolved.ts';
export type { PriceRule, PriceRuleName } from '../catalogue/resolved.ts';

export type Price = TokenPrice | VideoPrice;

/** A full or partial price: the fields it names replace the list price's (`tiers` and `multipliers` as a whole). */
export type PartialPrice = Partial<TokenPrice> & { per_second?: Record<string, string> };

/** An override of one model (a public id) or of the models a pattern matches (plans only). */
export interface PriceOverride {
  model: string;
  /** Exactly one of `price` and `multiplier`. */
  price?: PartialPrice;
  /** A decimal multiplier of the list price ("0.8"). */
  multiplier?: string;
}

export interface PricePlan {
  id: string;
  name: string;
  /** Counts the plan's changes; a receipt names the version its price came from. */
  version: number;
  /** A decimal multiplier of list prices for models no override names; null: list prices. */
  multiplier: string | null;
  overrides: PriceOverride[];
}

export interface CompiledPlan {
  plan: PricePlan;
  exact: ReadonlyMap<string, PriceOverride>;
  patterns: ReadonlyArray<{ glob: Glob; override: PriceOverride }>;
}

export function compilePlan(plan: PricePlan): CompiledPlan {
  const exact = new Map<string, PriceOverride>();
  const patterns: Array<{ glob: Glob; override: PriceOverride }> = [];
  for (const override of plan.overrides) {
    if (isGlob(override.model)) patterns.push({ glob: compileGlob(override.model), override });
    else exact.set(override.model, override);
  }
  return { plan, exact, patterns };
}

const MILLION = 1_000_000n;

/** `decimal` x `multiplier`, rounded up to the micro-unit (a plan never sells below its own arithmetic). */
export function scaleDecimal(decimal: string, multiplier: string): string {
  const product = parseMicros(decimal) * parseMicros(multiplier);
  return formatMicros((product + MILLION - 1n) / MILLION);
}

const TOKEN_AMOUNTS = [
  'input_per_mtok',
  'output_per_mtok',
  'cache_read_per_mtok',
  'cache_write_per_mtok',
  'cache_write_1h_per_mtok',
  'web_search_per_1k_requests',
  'web_fetch_per_1k_requests',
] as const;

/** Every unit price x `multiplier` (tiers' too); premiums (`multipliers`) and thresholds are ratios and counts, kept. */
export function scalePrice(price: Price, multiplier: string): Price {
  if (isVideoPrice(price)) return { per_second: Object.fromEntries(Object.entries(price.per_second).map(([tier, p]) => [tier, scaleDecimal(p, multiplier)])) };
  const scaled: TokenPrice = { ...price };
  for (const field of TOKEN_AMOUNTS) if (price[field] !== undefined) scaled[field] = scaleDecimal(price[field]!, multiplier);
  if (price.tiers) {
    scaled.tiers = price.tiers.map((tier) => {
      const step = { ...tier, input_per_mtok: scaleDecimal(tier.input_per_mtok, multiplier), output_per_mtok: scaleDecimal(tier.output_per_mtok, multiplier) };
      for (const field of ['cache_read_per_mtok', 'cache_write_per_mtok', 'cache_write_1h_per_mtok'] as const)
        if (tier[field] !== undefined) step[field] = scaleDecimal(tier[field]!, multiplier);
      return step;
    });
  }
  return scaled;
}

/**
 * A partial price over the list price, or undefined when it is of the other kind (a per-second
 * price for a token model, token prices for a video model). A video override prices only tiers
 * the model has: others are left out (the model cannot be asked for them).
 */
export function mergePrice(list: Price, partial: PartialPrice): Price | undefined {
  const { per_second: perSecond, ...tokenFields } = partial;
  if (isVideoPrice(list)) {
    if (!perSecond || Object.keys(tokenFields).length > 0) return undefined;
    const known = Object.entries(perSecond).filter(([tier]) => tier in list.per_second);
    return { per_second: { ...list.per_second, ...Object.fromEntries(known) } };
  }
  if (perSecond !== undefined) return undefined;
  return { ...list, ...tokenFields };
}

/** What one override makes of the list price (undefined: it does not apply to this model's kind). */
export function applyOverride(list: Price, override: PriceOverride): Price | undefined {
  if (override.multiplier !== undefined) return scalePrice(list, override.multiplier);
  return override.price ? mergePrice(list, override.price) : undefined;
}

export interface ResolvedPrice {
  price: Price;
  rule: PriceRule;
}

/**
 * The price `model` is sold at to a customer on `plan` (null: none) with its own `overrides`.
 * `valid` says whether a candidate price can be charged (the catalogue's checks: tiers below the
 * context window, an input step for derived cache prices); a candidate that cannot falls through
 * to the next rule, so a plan edited before a catalogue change never prices a model unchargeably.
 */
export function resolvePrice(
  model: { id: string; price: Price },
  plan: CompiledPlan | null,
  overrides: readonly PriceOverride[] | null | undefined,
  valid: (price: Price) => boolean = () => true,
): ResolvedPrice {
  const list = model.price;
  const planRef = plan ? { id: plan.plan.id, name: plan.plan.name, version: plan.plan.version } : undefined;
  const candidate = (override: PriceOverride | undefined, rule: PriceRule): ResolvedPrice | undefined => {
    if (!override) return undefined;
    const price = applyOverride(list, override);
    return price && valid(price) ? { price, rule: override.multiplier !== undefined ? { ...rule, multiplier: override.multiplier } : rule } : undefined;
  };
  const own = candidate(
    overrides?.find((o) => o.model === model.id),
    { rule: 'customer_override' },
  );
  if (own) return own;
  if (plan && planRef) {
    const exact = candidate(plan.exact.get(model.id), { rule: 'plan_model', plan: planRef });
    if (exact) return exact;
    const matching = plan.patterns.filter((p) => p.glob.matches(model.id));
    // The most specific pattern whose price fits the model; a less specific one after it.
    for (let rest = matching; rest.length > 0;) {
      const best = mostSpecific(rest, model.id)!;
      const found = candidate(best.override, { rule: 'plan_pattern', plan: planRef, pattern: best.override.model });
      if (found) return found;
      rest = rest.filter((p) => p !== best);
    }
    if (plan.plan.multiplier !== null) {
      const scaled = scalePrice(list, plan.plan.multiplier);
      if (valid(scaled)) return { price: scaled, rule: { rule: 'plan_multiplier', plan: planRef, multiplier: plan.plan.multiplier } };
    }
  }
  return { price: list, rule: { rule: 'list' } };
}
