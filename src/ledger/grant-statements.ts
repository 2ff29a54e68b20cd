// SQL of credit grants. A grant is a reservation of kind 'grant' owned by one process: it holds
// part of a customer's balance durably (wallet pending), requests draw from it in memory, and
// their charges are posted in batches, each moving money from the grant's hold to the customer's
// debits. Each statement is all or nothing; a guard divides by zero when its parts disagree.
import { keySpendCte } from './key-spend.ts';
import type { Statement } from './wallet-queue.ts';

const s = (value: bigint): string => value.toString();

/**
 * Opens grant `ref` or grows it by `want` micro-units, but never beyond 1/`share` of what the
 * customer has (available plus what this grant already holds, `held`), and not at all when that
 * leaves less than `need`. Its row has the amount granted (null: nothing).
 */
export function growGrant(input: {
  ref: string;
  customerId: string;
  owner: string;
  want: bigint;
  need: bigint;
  share: bigint;
  held: bigint;
  seq: number;
}): Statement {
  const purpose = JSON.stringify({ grant: true, owner: input.owner });
  return {
    name: 'ledger_grant_grow',
    // Lock order as everywhere: the grant's reservation row (when it exists), then the wallet.
    // `avail` reads the lock's count, so the lock is taken before `moved` updates the wallet; a
    // grow that took the wallet first deadlocked with a charge beyond its draw (grant, then wallet).
    sql: `with grant_row as (select ref from reservations where ref = ? for update),
       avail as (
         select least(?::bigint, (credits_posted - debits_posted - debits_pending + ?::bigint) / ?::bigint - ?::bigint) as amount
         from wallets where customer_id = ? and (select count(*) from grant_row) >= 0),
       moved as (
         update wallets w set debits_pending = w.debits_pending + avail.amount, updated_at = now()
         from avail where w.customer_id = ? and avail.amount >= ?::bigint and avail.amount > 0
         returning avail.amount),
       held as (
         insert into reservations (ref, customer_id, amount, kind, owner, purpose)
         select ?, ?, moved.amount, 'grant', ?, ?::jsonb from moved
         on conflict (ref) do update set amount = reservations.amount + excluded.amount
           where reservations.status = 'pending' and reservations.kind = 'grant'
         returning ref),
       entry as (
         insert into ledger_entries (customer_id, kind, reference, reservation_ref, amount, pending_delta, purpose)
         select ?, 'reserve', ?, ?, moved.amount, moved.amount, ?::jsonb from moved join held on true
         returning amount)
     select case when (select count(*) from moved) = (select count(*) from entry) then (select amount from entry)
                 else 1 / (select count(*) from entry) end as granted`,
    bindings: [
      input.ref,
      s(input.want),
      s(input.held),
      s(input.share),
      s(input.held),
      input.customerId,
      input.customerId,
      s(input.need),
      input.ref,
      input.customerId,
      input.owner,
      purpose,
      input.customerId,
      `grant:${input.ref}:${input.seq}`,
      input.ref,
      purpose,
    ],
  };
}

export interface ChargeItem {
  /** The request id: the charge's reference is `charge:<ref>`. */
  ref: string;
  grantRef: string;
  customerId: string;
  amount: string;
  /** The price version the usage was priced at, or null. */
  version: string | null;
  purpose: Record<string, unknown>;
}

/**
 * Posts many charges, each from its grant's hold to its customer's debits, in one statement.
 * Charges whose grant is no longer held, or whose reference is already posted, are skipped; the
 * row of each request says whether this statement posted it.
 */
export function chargeBatch(items: ChargeItem[]): Statement {
  return {
    name: 'ledger_grant_charge_batch',
    sql: `with req as (
         select * from jsonb_to_recordset(?::jsonb) as r(ref text, "grantRef" text, "customerId" text, amount bigint, version bigint, purpose jsonb)),
       ok as (
         -- Locks the grants before the wallets (the order every ledger operation keeps).
         select req.* from req join reservations g on g.ref = req."grantRef" and g.status = 'pending' and g.kind = 'grant'
         order by g.ref for update of g),
       entry as (
         insert into ledger_entries (customer_id, kind, reference, reservation_ref, amount, debits_delta, pending_delta, price_version_id, purpose, key_id)
         select "customerId", 'charge', 'charge:' || ref, "grantRef", amount, amount, -amount, version, purpose, purpose ->> 'key_id' from ok
         on conflict (reference) do nothing
         returning reference, reservation_ref, customer_id, amount, key_id),
       ${keySpendCte('entry')},
       per_grant as (select reservation_ref, sum(amount)::bigint as total from entry group by 1),
       grants as (
         update reservations g set amount = g.amount - p.total from per_grant p where g.ref = p.reservation_ref
         returning g.ref),
       per_wallet as (select customer_id, sum(amount)::bigint as total from entry group by 1),
       moved as (
         update wallets w set debits_posted = w.debits_posted + p.total, debits_pending = w.debits_pending - p.total, updated_at = now()
         from per_wallet p where w.customer_id = p.customer_id
         returning w.customer_id)
     select req.ref, entry.reference is not null as charged,
            1 / ((select count(*) from grants) = (select count(*) from per_grant)
                 and (select count(*) from moved) = (select count(*) from per_wallet))::int as guard
     from req left join entry on entry.reference = 'charge:' || req.ref`,
    bindings: [JSON.stringify(items)],
  };
}

/**
 * Gives `amount` of grant `ref` back to the customer's available balance (the grant keeps what its
 * open requests drew and what it has yet to post). Its row says whether it did.
 */
export function shrinkGrant(input: { ref: string; amount: bigint; seq: number }): Statement {
  const amount = s(input.amount);
  return {
    name: 'ledger_grant_shrink',
    sql: `with held as (
         update reservations set amount = amount - ?::bigint
         where ref = ? and status = 'pending' and kind = 'grant' and amount >= ?::bigint
         returning customer_id),
       moved as (
         update wallets w set debits_pending = w.debits_pending - ?::bigint, updated_at = now()
         from held where w.customer_id = held.customer_id
         returning w.customer_id),
       entry as (
         insert into ledger_entries (customer_id, kind, reference, reservation_ref, amount, pending_delta, purpose)
         select moved.customer_id, 'unreserve', ?, ?, ?::bigint, -?::bigint, '{"grant": true}'::jsonb from moved
         returning id)
     select case when (select count(*) from held) = (select count(*) from entry) then (select count(*) from entry)::int
                 else 1 / (select count(*) from entry) end as shrunk`,
    bindings: [amount, input.ref, amount, amount, `unreserve:${input.ref}:${input.seq}`, input.ref, amount, amount],
  };
}
