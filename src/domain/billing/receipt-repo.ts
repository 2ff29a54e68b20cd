// What a receipt is assembled from: the request's log row (or the video task's row), its journal
// entries by their references, and the price version it was priced at. Reads only.
import type { Knex } from 'knex';
import type { EntryRow } from '../../ledger/repo.ts';
import type { RequestLogRow } from '../../logs/request-logs.ts';
import { findTask } from '../../tasks/rows.ts';
import type { VideoTaskRow } from '../videos/kind.ts';

export interface PriceVersionRow {
  id: bigint;
  model_id: string;
  version: number;
  price: Record<string, unknown>;
}

/** The journal kinds a request's or a task's money moves through, in the order they happen. */
export const RECEIPT_KINDS = ['reserve', 'charge', 'settle', 'release', 'true_up'] as const;

export async function requestLog(db: Knex, requestId: string, customerId: string | undefined): Promise<RequestLogRow | undefined> {
  return db('request_logs')
    .where({ request_id: requestId })
    .modify((q) => {
      if (customerId) q.where({ customer_id: customerId });
    })
    .first();
}

export async function videoTask(db: Knex, taskId: string, customerId: string | undefined): Promise<VideoTaskRow | undefined> {
  const task = await findTask(db, taskId);
  return task && (!customerId || task.customer_id === customerId) ? (task as VideoTaskRow) : undefined;
}

/** Every journal entry of one request or task (its references are `<kind>:<ref>`), oldest first. */
export async function entriesOf(db: Knex, ref: string): Promise<EntryRow[]> {
  return db('ledger_entries')
    .whereIn(
      'reference',
      RECEIPT_KINDS.map((kind) => `${kind}:${ref}`),
    )
    .orderBy('id');
}

export async function priceVersion(db: Knex, id: bigint | null): Promise<PriceVersionRow | undefined> {
  if (id === null) return undefined;
  return db('price_versions').where({ id: id.toString() }).first('id', 'model_id', 'version', 'price');
}
