// One-statement forms of the two operations every request makes, and their batch forms for the
// wallet queue.
import { keySpendCte } from './key-spend.ts';
import type { BatchForm, Rows, Statement } from './wallet-queue.ts';

const s = (value: bigint): string => value.toString();

// One-statement forms of the two operations every request makes. Each is a single data-modifying
// statement: alone it commits in one round trip, and it holds the wallet's row lock only for
// itself. Both cover the common case only and answer `undefined` for anything else (a replayed
// reference, insufficient funds, free units, a charge above the hold); the caller then runs the
// general transaction, which sorts out the exact outcome. They run through the wallet queue.

/**
 * Reserves `amount` (no free units) for a new reference. A reference that exists fails the
 * statement's unique index, so the whole statement rolls back (and the caller takes the long way).
 */
/** A plain reserve of a request, owned by the process that makes it. */
export interface PlainReserve {
  ref: string;
  customerId: string;
  amount: bigint;
  priceVersionId: bigint | null;
  purpose: Record<string, unknown>;
  owner: string | null;
}

export function reserveStatement(input: PlainReserve): Statement {
  const amount = s(input.amount);
  const purpose = JSON.stringify(input.purpose);
  const version = input.priceVersionId === null ? null : s(input.priceVersionId);
  return {
    name: 'ledger_reserve',
    sql: `with moved as (
         update wallets set debits_pending = debits_pending + ?::bigint, updated_at = now()
         where customer_id = ? and credits_posted - debits_posted - (debits_pending + ?::bigint) >= 0
         returning customer_id),
       held as (
         insert into reservations (ref, customer_id, amount, price_version_id, purpose, owner, key_id)
         select ?, customer_id, ?::bigint, ?::bigint, ?::jsonb, ?, ?::jsonb ->> 'key_id' from moved
         returning ref, customer_id),
       entry as (
         insert into ledger_entries (customer_id, kind, reference, reservation_ref, amount, pending_delta, price_version_id, purpose)
         select customer_id, 'reserve', 'reserve:' || ref, ref, ?::bigint, ?::bigint, ?::bigint, ?::jsonb from held
         returning id)
       select count(*)::int as reserved from entry`,
    bindings: [amount, input.customerId, amount, input.ref, amount, version, purpose, input.owner, purpose, amount, amount, version, purpose],
  };
}

export const reservedBy = (rows: Rows): boolean => Number(rows[0]?.reserved) === 1;

/**
 * Settles a pending reservation without free units whose charge fits inside it (the usual case:
 * the hold is an upper bound), releasing the rest. Its row holds the amount posted, or null.
 */
export function settleStatement(input: { ref: string; charge: bigint; purpose: Record<string, unknown> }): Statement {
  const charge = s(input.charge);
  return {
    name: 'ledger_settle',
    sql: `with resolved as (
       update reservations set status = 'settled', resolved_at = now()
       where ref = ? and status = 'pending' and free_model_id is null and amount >= ?::bigint
       returning ref, customer_id, amount, price_version_id, purpose, key_id),
     moved as (
       update wallets w set debits_pending = w.debits_pending - resolved.amount, debits_posted = w.debits_posted + ?::bigint, updated_at = now()
       from resolved where w.customer_id = resolved.customer_id
       returning w.customer_id),
     entry as (
       insert into ledger_entries (customer_id, kind, reference, reservation_ref, amount, debits_delta, pending_delta, price_version_id, purpose, key_id)
       select resolved.customer_id, 'settle', 'settle:' || resolved.ref, resolved.ref, ?::bigint, ?::bigint, -resolved.amount, resolved.price_version_id,
              resolved.purpose || ?::jsonb || jsonb_build_object('reserved', resolved.amount::text), resolved.key_id
       from resolved join moved on moved.customer_id = resolved.customer_id
       returning amount, key_id),
     ${keySpendCte('entry')}
     -- A reservation resolved without its wallet moved must not commit: dividing by the zero
     -- entries aborts the statement (a constant 1/0 would be folded at planning and always fail).
     select case when (select count(*) from resolved) = (select count(*) from entry) then (select amount from entry)
                 else 1 / (select count(*) from entry) end as charged`,
    bindings: [input.ref, charge, charge, charge, charge, JSON.stringify(input.purpose)],
  };
}

export const settledBy = (rows: Rows): bigint | undefined => {
  const charged = rows[0]?.charged;
  return charged === null || charged === undefined ? undefined : BigInt(charged as string | bigint);
};

/** A plain reserve as a row of a batch (amounts as strings: JSON numbers lose bigint precision). */
export interface ReserveItem {
  ref: string;
  customerId: string;
  amount: string;
  version: string | null;
  purpose: Record<string, unknown>;
  owner: string | null;
}

export const reserveItem = (input: PlainReserve): ReserveItem => ({
  ref: input.ref,
  customerId: input.customerId,
  amount: s(input.amount),
  version: input.priceVersionId === null ? null : s(input.priceVersionId),
  purpose: input.purpose,
  owner: input.owner,
});

/**
 * Many reserves of one wallet in one statement, all or none: the wallet moves by their sum only if
 * it covers the sum. None (or an error) sends each back to run alone, where some may still fit.
 */
export const reserveBatch: BatchForm<ReserveItem> = {
  statement: (items) => ({
    name: 'ledger_reserve_batch',
    sql: `with req as (
         select * from jsonb_to_recordset(?::jsonb) as r(ref text, amount bigint, version bigint, purpose jsonb, owner text)),
       total as (select sum(amount)::bigint as amount from req),
       moved as (
         update wallets w set debits_pending = w.debits_pending + total.amount, updated_at = now()
         from total
         where w.customer_id = ? and w.credits_posted - w.debits_posted - (w.debits_pending + total.amount) >= 0
         returning w.customer_id),
       held as (
         insert into reservations (ref, customer_id, amount, price_version_id, purpose, owner, key_id)
         select req.ref, moved.customer_id, req.amount, req.version, req.purpose, req.owner, req.purpose ->> 'key_id' from req cross join moved
         returning ref, customer_id, amount, price_version_id, purpose),
       entry as (
         insert into ledger_entries (customer_id, kind, reference, reservation_ref, amount, pending_delta, price_version_id, purpose)
         select customer_id, 'reserve', 'reserve:' || ref, ref, amount, amount, price_version_id, purpose from held
         returning id)
       select count(*)::int as reserved from entry`,
    bindings: [JSON.stringify(items.map(({ ref, amount, version, purpose, owner }) => ({ ref, amount, version, purpose, owner }))), items[0]!.customerId],
  }),
  split: (rows, items) => (Number(rows[0]?.reserved) === items.length ? items.map(() => [{ reserved: 1 }]) : undefined),
};

export interface SettleItem {
  ref: string;
  charge: string;
  purpose: Record<string, unknown>;
}

export const settleItem = (input: { ref: string; charge: bigint; purpose: Record<string, unknown> }): SettleItem => ({
  ref: input.ref,
  charge: s(input.charge),
  purpose: input.purpose,
});

/**
 * Many settles in one statement, each on the terms of settleStatement: a reservation that is not
 * pending, has free units or holds less than the charge comes back with `charged` null (the
 * caller then takes the general transaction for it).
 */
export const settleBatch: BatchForm<SettleItem> = {
  statement: (items) => ({
    name: 'ledger_settle_batch',
    sql: `with req as (
       select * from jsonb_to_recordset(?::jsonb) as r(ref text, charge bigint, purpose jsonb)),
     resolved as (
       update reservations res set status = 'settled', resolved_at = now()
       from req
       where res.ref = req.ref and res.status = 'pending' and res.free_model_id is null and res.amount >= req.charge
       returning res.ref, res.customer_id, res.amount, res.price_version_id, res.purpose, res.key_id, req.charge, req.purpose as extra),
     sums as (select customer_id, sum(amount)::bigint as released, sum(charge)::bigint as charged from resolved group by customer_id),
     moved as (
       update wallets w set debits_pending = w.debits_pending - sums.released, debits_posted = w.debits_posted + sums.charged, updated_at = now()
       from sums where w.customer_id = sums.customer_id
       returning w.customer_id),
     entry as (
       insert into ledger_entries (customer_id, kind, reference, reservation_ref, amount, debits_delta, pending_delta, price_version_id, purpose, key_id)
       select r.customer_id, 'settle', 'settle:' || r.ref, r.ref, r.charge, r.charge, -r.amount, r.price_version_id,
              r.purpose || r.extra || jsonb_build_object('reserved', r.amount::text), r.key_id
       from resolved r join moved m on m.customer_id = r.customer_id
       returning reservation_ref, amount, key_id),
     ${keySpendCte('entry')}
     -- As in settleStatement: a reservation resolved without its wallet moved aborts the statement.
     select req.ref, entry.amount as charged, 1 / ((select count(*) from resolved) = (select count(*) from entry))::int as guard
     from req left join entry on entry.reservation_ref = req.ref`,
    bindings: [JSON.stringify(items)],
  }),
  split: (rows, items) => {
    const charged = new Map(rows.map((row) => [row.ref as string, row.charged]));
    return items.map((item) => [{ charged: charged.get(item.ref) ?? null }]);
  },
};
