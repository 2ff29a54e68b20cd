// A model's price as the price list gives it (exact decimal strings).
import type { PublicSchemas } from '../api/session.ts';

export function PriceText({ price, currency }: { price: PublicSchemas['ModelPricing']['price']; currency: string }) {
  if (price.type === 'tokens') {
    return (
      <span>
        in {price.input_per_mtok} · out {price.output_per_mtok}
        {price.cache_read_per_mtok !== null ? ` · cache read ${price.cache_read_per_mtok}` : ''}
        {price.cache_write_per_mtok !== null ? ` · cache write ${price.cache_write_per_mtok}` : ''} {currency} per million tokens
        {price.tiers.map((tier) => (
          <span key={tier.above_input_tokens}>
            ; above {tier.above_input_tokens} input tokens: in {tier.input_per_mtok} · out {tier.output_per_mtok}
            {tier.cache_read_per_mtok !== null ? ` · cache read ${tier.cache_read_per_mtok}` : ''}
            {tier.cache_write_per_mtok !== null ? ` · cache write ${tier.cache_write_per_mtok}` : ''}
          </span>
        ))}
      </span>
    );
  }
  return (
    <span>
      {Object.entries(price.per_second)
        .map(([tier, amount]) => `${tier} ${amount}`)
        .join(' · ')}{' '}
      {currency} per second
    </span>
  );
}

export function quotaText(quota: PublicSchemas['FreeQuota'] | null): string {
  return quota ? `${quota.amount} ${quota.unit} per ${quota.period}` : 'none';
}

/** Which rule chose a price: the customer's own, its plan's (by name and version), or the list. */
export function ruleText(rule: PublicSchemas['PriceRule']): string {
  const plan = rule.plan ? `plan ${rule.plan.name} (version ${rule.plan.version})` : '';
  const times = rule.multiplier ? ` × ${rule.multiplier}` : '';
  switch (rule.rule) {
    case 'list':
      return 'the list price';
    case 'customer_override':
      return `the customer's own price${times}`;
    case 'plan_model':
      return `${plan}, for this model`;
    case 'plan_pattern':
      return `${plan}, for ${rule.pattern ?? 'a pattern'}${times}`;
    case 'plan_multiplier':
      return `${plan}${times}`;
    default:
      return `${rule.rule}${plan ? `, ${plan}` : ''}`;
  }
}
