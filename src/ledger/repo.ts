// Row-level operations of the ledger; every function runs inside the caller's transaction.
import type { Knex } from 'knex';

export type EntryKind = 'top_up' | 'reserve' | 'settle' | 'release' | 'adjustment' | 'charge' | 'unreserve' | 'true_up' | 'debt_repaid';

export interface EntryRow {
  id: bigint;
  customer_id: string;
  kind: EntryKind;
  reference: string;
  reservation_ref: string | null;
  amount: bigint;
  credits_delta: bigint;
  debits_delta: bigint;
  pending_delta: bigint;
  /** What the entry added to the customer's debt (delivered usage the balance could not cover). */
  debt_delta: bigint;
  free_units: bigint;
  free_amount: bigint;
  price_version_id: bigint | null;
  purpose: Record<string, unknown>;
  /** The key that spent, on settle and charge entries. */
  key_id: string | null;
  created_at: Date;
}

export interface ReservationRow {
  ref: string;
  customer_id: string;
  amount: bigint;
  status: 'pending' | 'settled' | 'released';
  free_model_id: string | null;
  free_unit: string | null;
  free_period_start: string | null;
  free_units_held: bigint;
  price_version_id: bigint | null;
  purpose: Record<string, unknown>;
  kind: 'request' | 'video' | 'grant';
  owner: string | null;
  /** The key the reservation was made for (grants serve a customer: none). */
  key_id: string | null;
  progress: { charge?: string; usage?: Record<string, unknown> } | null;
  created_at: Date;
  resolved_at: Date | null;
}

export type NewEntry = Pick<EntryRow, 'customer_id' | 'kind' | 'reference' | 'amount'> &
  Partial<
    Pick<
      EntryRow,
      | 'reservation_ref'
      | 'credits_delta'
      | 'debits_delta'
      | 'pending_delta'
      | 'debt_delta'
      | 'free_units'
      | 'free_amount'
      | 'price_version_id'
      | 'purpose'
      | 'key_id'
    >
  >;

const s = (value: bigint): string => value.toString();

export async function insertEntry(trx: Knex.Transaction, entry: NewEntry): Promise<EntryRow> {
  const [row] = await trx('ledger_entries')
    .insert({
      customer_id: entry.customer_id,
      kind: entry.kind,
      reference: entry.reference,
      reservation_ref: entry.reservation_ref ?? null,
      amount: s(entry.amount),
      credits_delta: s(entry.credits_delta ?? 0n),
      debits_delta: s(entry.debits_delta ?? 0n),
      pending_delta: s(entry.pending_delta ?? 0n),
      debt_delta: s(entry.debt_delta ?? 0n),
      free_units: s(entry.free_units ?? 0n),
      free_amount: s(entry.free_amount ?? 0n),
      price_version_id: entry.price_version_id === undefined || entry.price_version_id === null ? null : s(entry.price_version_id),
      purpose: JSON.stringify(entry.purpose ?? {}),
      key_id: entry.key_id ?? null,
    })
    .returning('*');
  return row as EntryRow;
}

export async function findEntry(db: Knex | Knex.Transaction, reference: string): Promise<EntryRow | undefined> {
  return db('ledger_entries').where({ reference }).first();
}

/**
 * Applies column deltas to a wallet only if it stays solvent (available >= 0). Under READ
 * COMMITTED a concurrent updater waits for the row lock and re-checks the condition on the new
 * row, so no interleaving can overdraw. Returns false when the condition fails.
 */
export async function moveWallet(trx: Knex.Transaction, customerId: string, deltas: { credits?: bigint; debits?: bigint; pending?: bigint }): Promise<boolean> {
  const credits = s(deltas.credits ?? 0n);
  const debits = s(deltas.debits ?? 0n);
  const pending = s(deltas.pending ?? 0n);
  const updated = await trx('wallets')
    .where({ customer_id: customerId })
    .andWhereRaw('(credits_posted + ?::bigint) - (debits_posted + ?::bigint) - (debits_pending + ?::bigint) >= 0', [credits, debits, pending])
    .update({
      credits_posted: trx.raw('credits_posted + ?::bigint', [credits]),
      debits_posted: trx.raw('debits_posted + ?::bigint', [debits]),
      debits_pending: trx.raw('debits_pending + ?::bigint', [pending]),
      updated_at: trx.fn.now(),
    });
  return updated === 1;
}

export async function ensureWallet(trx: Knex.Transaction, customerId: string): Promise<void> {
  await trx('wallets').insert({ customer_id: customerId }).onConflict('customer_id').ignore();
}

export async function customerExists(db: Knex | Knex.Transaction, customerId: string): Promise<boolean> {
  return Boolean(await db('customers').where({ id: customerId }).first('id'));
}
