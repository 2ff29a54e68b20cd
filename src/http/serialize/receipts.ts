import type { Receipt } from '../../domain/billing/receipts.ts';
import { formatMicros } from '../../shared/money.ts';
import type { AdminComponents, PublicComponents } from '../../types.ts';

type WireReceipt = PublicComponents['schemas']['Receipt'];

const money = (amount: bigint | null): string | null => (amount === null ? null : formatMicros(amount));

const EXPLANATIONS: Record<string, string> = {
  input_not_reported: 'input was estimated from the request',
  output_not_reported: 'output was estimated from the content delivered',
  output_not_final: 'the stream ended before the final count, so output was estimated from the content delivered (never below the last count)',
  owner_gone: 'the serving process stopped, and the request was charged at its last checkpoint of what was delivered',
  operator_settled: 'an operator settled the task after review, at the amount shown',
};

function explain(receipt: Receipt): string {
  if (!receipt.estimated && receipt.type === 'video_task') return 'Billed by the output the provider confirmed (duration and resolution).';
  if (!receipt.estimated) return receipt.reported ? 'The provider reported every count; nothing was estimated.' : 'Nothing was billed by usage.';
  const reasons = (receipt.estimateReason ?? '').split(',').filter(Boolean);
  const parts = reasons.map((code) => EXPLANATIONS[code] ?? code);
  return parts.length > 0 ? `Estimated: ${parts.join('; ')}.` : 'Some usage was estimated.';
}

export function receiptToWire(receipt: Receipt, currency: string): WireReceipt {
  const { charge, hold } = receipt;
  return {
    object: 'receipt',
    id: receipt.id,
    type: receipt.type,
    customer_id: receipt.customerId,
    key_id: receipt.keyId,
    endpoint: receipt.endpoint,
    model: receipt.model,
    requested_model: receipt.requestedModel,
    max_tokens_capped: receipt.maxTokensCapped,
    http_status: receipt.httpStatus,
    task_status: receipt.taskStatus,
    created_at: receipt.createdAt.toISOString(),
    settled_at: receipt.settledAt ? receipt.settledAt.toISOString() : null,
    billable: receipt.billable,
    currency,
    price: receipt.price ? { version: receipt.price.version, model: receipt.price.model_id, unit_prices: receipt.price.price } : null,
    usage: {
      reported: receipt.reported,
      billed: receipt.billed,
      price_tier: receipt.priceTier && {
        index: receipt.priceTier.index,
        above_input_tokens: receipt.priceTier.above_input_tokens,
        input_tokens: receipt.priceTier.input_tokens,
      },
    },
    measurement: { estimated: receipt.estimated, reason: receipt.estimateReason, explanation: explain(receipt) },
    hold: {
      source: hold.source,
      amount: money(hold.amount),
      free_units_held: Number(hold.freeUnitsHeld),
      outcome: hold.outcome,
      released: money(hold.released),
    },
    charge: {
      amount: formatMicros(charge.posted),
      from_hold: formatMicros(charge.fromHold),
      from_balance: formatMicros(charge.fromBalance),
      debt: formatMicros(charge.debt),
      waived: formatMicros(charge.waived),
      true_up: formatMicros(charge.trueUp),
      total: formatMicros(charge.posted + charge.debt),
      free_units: Number(charge.freeUnits),
      free_amount: formatMicros(charge.freeAmount),
    },
    journal: receipt.journal.map((e) => ({
      kind: e.kind as WireReceipt['journal'][number]['kind'],
      reference: e.reference,
      amount: formatMicros(BigInt(e.amount)),
      free_units: Number(e.free_units),
      free_amount: formatMicros(BigInt(e.free_amount)),
      debt: formatMicros(BigInt(e.debt_delta)),
      created_at: new Date(e.created_at).toISOString(),
    })),
  };
}

export const adminReceiptToWire = (receipt: Receipt, currency: string): AdminComponents['schemas']['AdminReceipt'] => ({
  ...receiptToWire(receipt, currency),
  provider: receipt.provider,
  upstream_request_id: receipt.upstreamRequestId,
});
