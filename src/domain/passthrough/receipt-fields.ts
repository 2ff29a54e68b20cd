// What a request's log row records for its receipt (GET /v1/requests/{id}): the price version and
// the hold when the hold opens, the charge, free units and debt once the settlement is durable.
import type { ResolvedModel } from '../../catalogue/store.ts';
import type { Hold } from '../../holds/holds.ts';
import type { SettlementResult } from '../../holds/settler.ts';
import type { LogFields } from '../../logs/request-logs.ts';

export const holdFields = (model: ResolvedModel, hold: Hold): LogFields => ({
  price_version_id: model.priceVersion.id,
  hold_amount: hold.amount,
  hold_source: hold.source,
  free_units_held: hold.freeUnitsHeld,
});

/** The settlement as the log row tells it: what the delivered usage cost (posted plus debt), free units spent. */
export function settledFields(result: Exclude<SettlementResult, string>): LogFields {
  if (!('charged' in result)) return { cost: 0n, free_units: 0n, free_amount: 0n, debt: 0n };
  const debt = 'debt' in result ? result.debt : 0n;
  const free = 'freeUnitsUsed' in result ? { free_units: result.freeUnitsUsed, free_amount: result.freeAmount } : { free_units: 0n, free_amount: 0n };
  return { cost: result.charged + debt, debt, ...free };
}
