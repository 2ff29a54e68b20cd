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
