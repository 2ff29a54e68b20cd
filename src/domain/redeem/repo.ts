// The SQL of redeem codes: batches and their codes, listed with what became of each, voided, and
// claimed once. Times are the database's (`now()`), so every replica judges an expiry alike.
import type { Knex } from 'knex';

export type StoredStatus = 'active' | 'redeemed' | 'voided';
/** As operators see it: an active code past its expiry is `expired`. */
export type CodeStatus = StoredStatus | 'expired';

export interface CodeRow {
  id: string;
  batch_id: string;
  amount: bigint;
  expires_at: Date;
  status: CodeStatus;
  redeemed_by: string | null;
  redeemed_key_id: string | null;
  redeemed_at: Date | null;
  voided_at: Date | null;
  void_reason: string | null;
}

export interface BatchRow {
  id: string;
  amount: bigint;
  count: number;
  expires_at: Date;
  note: string | null;
  created_at: Date;
  active: number;
  redeemed: number;
  voided: number;
  expired: number;
}

const CODE_COLUMNS = `c.id, c.batch_id, c.amount, c.expires_at, c.redeemed_by, c.redeemed_key_id, c.redeemed_at, c.voided_at, c.void_reason,
  case when c.status = 'active' and c.expires_at <= now() then 'expired' else c.status end as status`;

const BATCH_COLUMNS = `b.id, b.amount, b.count, b.expires_at, b.note, b.created_at,
  (count(*) filter (where c.status = 'active' and c.expires_at > now()))::int as active,
  (count(*) filter (where c.status = 'redeemed'))::int as redeemed,
  (count(*) filter (where c.status = 'voided'))::int as voided,
  (count(*) filter (where c.status = 'active' and c.expires_at <= now()))::int as expired`;

export async function insertBatch(
  trx: Knex.Transaction,
  batch: { id: string; amount: bigint; expiresAt: Date; note: string | null },
  codes: Array<{ id: string; hash: string }>,
): Promise<void> {
  const amount = batch.amount.toString();
  await trx('redeem_batches').insert({ id: batch.id, amount, count: codes.length, expires_at: batch.expiresAt, note: batch.note });
  await trx('redeem_codes').insert(codes.map((code) => ({ id: code.id, batch_id: batch.id, code_hash: code.hash, amount, expires_at: batch.expiresAt })));
}

export async function batches(db: Knex, page: { limit: number; after?: string; id?: string }): Promise<BatchRow[]> {
  const { rows } = await db.raw<{ rows: BatchRow[] }>(
    `select ${BATCH_COLUMNS} from redeem_batches b join redeem_codes c on c.batch_id = b.id
     where (?::text is null or b.id = ?) and (?::text is null or b.seq < (select seq from redeem_batches where id = ?))
     group by b.id order by b.seq desc limit ?`,
    [page.id ?? null, page.id ?? null, page.after ?? null, page.after ?? null, page.limit],
  );
  return rows;
}

export interface CodeFilter {
  limit: number;
  /** The id of the last code of the previous page (minting order). */
  after?: string;
  batchId?: string;
  status?: CodeStatus;
  customerId?: string;
}

export async function codes(db: Knex, filter: CodeFilter): Promise<CodeRow[]> {
  const status = filter.status ?? null;
  const { rows } = await db.raw<{ rows: CodeRow[] }>(
    `select ${CODE_COLUMNS} from redeem_codes c
     where (?::text is null or c.batch_id = ?) and (?::text is null or c.redeemed_by = ?)
       and (?::text is null or (case when c.status = 'active' and c.expires_at <= now() then 'expired' else c.status end) = ?)
       and (?::text is null or c.seq > (select seq from redeem_codes where id = ?))
     order by c.seq limit ?`,
    [
      filter.batchId ?? null,
      filter.batchId ?? null,
      filter.customerId ?? null,
      filter.customerId ?? null,
      status,
      status,
      filter.after ?? null,
      filter.after ?? null,
      filter.limit,
    ],
  );
  return rows;
}

/** Voids the batch's codes that were not redeemed (nor voided before); the number voided. */
export async function voidBatchCodes(db: Knex, batchId: string, reason: string | null): Promise<number> {
  return db('redeem_codes').where({ batch_id: batchId, status: 'active' }).update({ status: 'voided', voided_at: db.fn.now(), void_reason: reason });
}

export async function codeById(db: Knex, codeId: string): Promise<CodeRow | undefined> {
  const { rows } = await db.raw<{ rows: CodeRow[] }>(`select ${CODE_COLUMNS} from redeem_codes c where c.id = ?`, [codeId]);
  return rows[0];
}

/** Voids one code unless it was redeemed; answers the code as it is now (undefined: no such code). */
export async function voidCode(db: Knex, codeId: string, reason: string | null): Promise<CodeRow | undefined> {
  await db('redeem_codes').where({ id: codeId, status: 'active' }).update({ status: 'voided', voided_at: db.fn.now(), void_reason: reason });
  return codeById(db, codeId);
}

/**
 * Marks the code redeemed by this customer if it is active and not expired, under its row lock: a
 * second replica's claim waits for this transaction, then finds it no longer active.
 */
export async function claim(trx: Knex.Transaction, hash: string, who: { customerId: string; keyId: string }): Promise<CodeRow | undefined> {
  const { rows } = await trx.raw<{ rows: CodeRow[] }>(
    `update redeem_codes c set status = 'redeemed', redeemed_by = ?, redeemed_key_id = ?, redeemed_at = now()
     where c.code_hash = ? and c.status = 'active' and c.expires_at > now()
     returning ${CODE_COLUMNS}`,
    [who.customerId, who.keyId, hash],
  );
  return rows[0];
}

/** The code this customer redeemed before (a replay), read after any claim in flight has committed. */
export async function redeemedBy(db: Knex, hash: string, customerId: string): Promise<CodeRow | undefined> {
  const { rows } = await db.raw<{ rows: CodeRow[] }>(`select ${CODE_COLUMNS} from redeem_codes c where c.code_hash = ? and c.redeemed_by = ?`, [
    hash,
    customerId,
  ]);
  return rows[0];
}
