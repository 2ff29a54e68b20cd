// The watermark of time-windowed reads (docs/money.md, "The export watermark"): an instant below
// which no row dated by the clock at its insert (ledger_entries.posted_at, request_logs.logged_at)
// can still commit. It is the start of the oldest transaction open in this database now, or this
// statement's start when none is older:
// - a transaction announces its start in pg_stat_activity (xact_start) before it runs a statement,
//   so a row it inserts is dated at or after that start, and it leaves pg_stat_activity only after
//   its commit is visible to new snapshots. A transaction this statement does not see is either
//   committed (a read after this statement sees its rows) or not begun (its rows will be dated
//   after this statement's start, which bounds the watermark);
// - only client sessions count (an autovacuum worker writes no rows of ours), and only those of
//   this database. Sessions of other roles show no xact_start to a role without pg_read_all_stats:
//   every replica must connect as the same role (or one with that grant);
// - the embedded PGlite runs one session, which is this statement's: the watermark is its start.
// One set of SQL for both. Reads that rely on it run after it, in statements of their own.
import type { Knex } from 'knex';

export const WATERMARK_SQL = `select least(statement_timestamp(),
         (select min(xact_start) from pg_stat_activity
           where datname = current_database() and backend_type = 'client backend' and xact_start is not null)) as watermark`;

/** Rows dated (by their insert's clock) before the instant returned are all committed, and no other can come. */
export async function readWatermark(db: Knex): Promise<Date> {
  const { rows } = await db.raw<{ rows: Array<{ watermark: Date }> }>(WATERMARK_SQL);
  return new Date(rows[0]!.watermark); // milliseconds: truncated down, so still a watermark
}
