import type { BatchRow, CodeRow, Redemption } from '../../domain/redeem/service.ts';
import { formatMicros } from '../../shared/money.ts';
import type { AdminComponents, PublicComponents } from '../../types.ts';

type AdminSchemas = AdminComponents['schemas'];

const iso = (at: Date | string | null): string | null => (at === null ? null : new Date(at).toISOString());

export const batchToWire = (b: BatchRow, currency: string): AdminSchemas['RedeemBatch'] => ({
  object: 'redeem_batch',
  id: b.id,
  amount: formatMicros(BigInt(b.amount)),
  currency,
  count: b.count,
  expires_at: iso(b.expires_at)!,
  note: b.note,
  created_at: iso(b.created_at)!,
  active: b.active,
  redeemed: b.redeemed,
  voided: b.voided,
  expired: b.expired,
});

export const codeToWire = (c: CodeRow, currency: string): AdminSchemas['RedeemCode'] => ({
  object: 'redeem_code',
  id: c.id,
  batch_id: c.batch_id,
  amount: formatMicros(BigInt(c.amount)),
  currency,
  expires_at: iso(c.expires_at)!,
  status: c.status,
  redeemed_by: c.redeemed_by,
  redeemed_key_id: c.redeemed_key_id,
  redeemed_at: iso(c.redeemed_at),
  reference: c.status === 'redeemed' ? `top_up:redeem:${c.id}` : null,
  voided_at: iso(c.voided_at),
  void_reason: c.void_reason,
});

export const redemptionToWire = (r: Redemption, currency: string): PublicComponents['schemas']['Redemption'] => ({
  object: 'credit_redemption',
  code_id: r.code.id,
  amount: formatMicros(BigInt(r.code.amount)),
  currency,
  redeemed_at: iso(r.code.redeemed_at)!,
  reference: r.reference,
});
