// A job that any replica may tick but that must run once across them (request-log upkeep): a lease
// row per job in the database. A replica takes the lease only when no one holds it and the last run
// started at least `gapMs` ago, by the database's clock, so replicas ticking on the same schedule
// run it once per period whatever their own clocks say; a run renews the lease as it goes and stops
// when it could not (another took it after it ran out). A holder that died leaves the lease to run
// out. A row rather than an advisory lock: it needs no session of its own (PgBouncer's transaction
// pooling) and works on the embedded database, where every connection is one backend.
import type { Knex } from 'knex';

export interface LeasedJob {
  /** The lease's name (one row per job). */
  name: string;
  /** Who runs it (this process's instance id). */
  holder: string;
  /** How long the lease lasts without renewal. */
  leaseMs: number;
  /** The least time between the starts of two runs, across replicas. */
  gapMs: number;
}

export interface Lease {
  /** Extends the lease; false once it was lost (the run should stop). */
  renew(): Promise<boolean>;
}

/** Runs `work` under the job's lease; 'skipped' when another replica holds it or ran it within the gap. */
export async function onceAcrossReplicas<T>(db: Knex, job: LeasedJob, work: (lease: Lease) => Promise<T>): Promise<T | 'skipped'> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `insert into job_leases as j (name, holder, leased_until, last_started_at)
     values (?, ?, now() + ? * interval '1 millisecond', now())
     on conflict (name) do update set holder = excluded.holder, leased_until = excluded.leased_until, last_started_at = excluded.last_started_at
      where j.leased_until <= now() and j.last_started_at <= now() - ? * interval '1 millisecond'
     returning 1`,
    [job.name, job.holder, job.leaseMs, job.gapMs],
  );
  if (rows.length === 0) return 'skipped';
  const lease: Lease = {
    async renew() {
      const renewed = await db('job_leases')
        .where({ name: job.name, holder: job.holder })
        .where('leased_until', '>', db.fn.now())
        .update({ leased_until: db.raw(`now() + ? * interval '1 millisecond'`, [job.leaseMs]) });
      return renewed === 1;
    },
  };
  try {
    return await work(lease);
  } finally {
    // Free for the next period (the gap still holds); a lease already lost is not ours to end.
    await db('job_leases')
      .where({ name: job.name, holder: job.holder })
      .update({ leased_until: db.fn.now() })
      .catch(() => undefined);
  }
}

/** The job's lease bound to its name and holder: what a job's owner is handed to run under it. */
export const leaseOf =
  (db: Knex, job: LeasedJob) =>
  <T>(work: (lease: Lease) => Promise<T>): Promise<T | 'skipped'> =>
    onceAcrossReplicas(db, job, work);
