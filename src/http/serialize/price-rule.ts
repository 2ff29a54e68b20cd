// The rule that chose a price, as customers see it: the price list, quotes and receipts name it.
import type { PriceRule } from '../../pricing/plans.ts';
import type { PublicComponents } from '../../types.ts';

/** The plan's name and version, never its id. */
export const priceRuleToWire = (rule: PriceRule | null | undefined): PublicComponents['schemas']['PriceRule'] => ({
  rule: rule?.rule ?? 'list',
  plan: rule?.plan ? { name: rule.plan.name, version: rule.plan.version } : null,
  pattern: rule?.pattern ?? null,
  multiplier: rule?.multiplier ?? null,
});
