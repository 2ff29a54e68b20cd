// Operators' view of video tasks, and the only way out of review: settle by an amount or release.
import type { Knex } from 'knex';
import { parseMicros } from '../../shared/money.ts';
import { Failure } from '../failure.ts';
import { isLedgerError } from '../../ledger/errors.ts';
import type { Ledger } from '../../ledger/service.ts';
import { videoFailures } from './errors.ts';
import { VideoStatus, type VideoTaskRow } from './model.ts';
import { findTask, transition } from './repo.ts';

export interface Resolution {
  action: 'settle' | 'release';
  amount?: string;
  actor: string;
  reason: string;
}

export interface VideoReview {
  list(filter: { status?: string; customerId?: string; limit: number }): Promise<{ tasks: VideoTaskRow[]; hasMore: boolean }>;
  get(taskId: string): Promise<VideoTaskRow | Failure>;
  resolve(taskId: string, resolution: Resolution): Promise<VideoTaskRow | Failure>;
}

export function createVideoReview(deps: { db: Knex; ledger: Ledger }): VideoReview {
  const { db, ledger } = deps;
  return {
    async list({ status, customerId, limit }) {
      const rows: VideoTaskRow[] = await db('video_tasks')
        .modify((q) => {
          if (status) q.where({ status });
          if (customerId) q.where({ customer_id: customerId });
        })
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(limit + 1);
      return { tasks: rows.slice(0, limit), hasMore: rows.length > limit };
    },

    async get(taskId) {
      return (await findTask(db, taskId)) ?? videoFailures.taskNotFound();
    },

    async resolve(taskId, resolution) {
      const task = await findTask(db, taskId);
      if (!task) return videoFailures.taskNotFound();
      if (task.status !== VideoStatus.Review) {
        return videoFailures.notInReview(task.status);
      }
      const purpose = { resolved_by: resolution.actor, reason: resolution.reason };
      if (resolution.action === 'settle') {
        if (resolution.amount === undefined) return videoFailures.invalid('amount', 'Settling needs an amount.');
        const settled = await ledger.settle({ ref: taskId, charge: { amount: parseMicros(resolution.amount) }, purpose });
        if (isLedgerError(settled)) return new Failure(settled, `The reservation cannot be settled: ${settled}.`, { param: 'amount' });
        await transition(db, taskId, VideoStatus.Review, {
          status: VideoStatus.Completed,
          billed_amount: (settled.charged + settled.debt).toString(), // what the output cost: posted, and any debt
          completed_at: db.fn.now(),
          error: null,
        });
      } else {
        const released = await ledger.release({ ref: taskId, purpose });
        if (isLedgerError(released)) return new Failure(released, `The reservation cannot be released: ${released}.`);
        await transition(db, taskId, VideoStatus.Review, {
          status: VideoStatus.Failed,
          completed_at: db.fn.now(),
          error: JSON.stringify({ code: 'released_after_review', message: resolution.reason }),
        });
      }
      return (await findTask(db, taskId))!;
    },
  };
}
