// Operators' view of the tasks (/admin/v1/video-tasks: every kind, videos and background responses)
// and their way out of review, settle by an amount or release (src/tasks/review.ts), with the
// refusals in the admin API's words.
import type { Knex } from 'knex';
import { parseMicros } from '../../shared/money.ts';
import { Failure } from '../failure.ts';
import type { Ledger } from '../../ledger/service.ts';
import type { TaskRow } from '../../tasks/model.ts';
import { resolveReview } from '../../tasks/review.ts';
import { findTask, listAllTasks } from '../../tasks/rows.ts';
import { videoFailures } from './errors.ts';

export interface Resolution {
  action: 'settle' | 'release';
  amount?: string;
  actor: string;
  reason: string;
}

export interface VideoReview {
  list(filter: { status?: string; customerId?: string; limit: number }): Promise<{ tasks: TaskRow[]; hasMore: boolean }>;
  get(taskId: string): Promise<TaskRow | Failure>;
  resolve(taskId: string, resolution: Resolution): Promise<TaskRow | Failure>;
}

export function createVideoReview(deps: { db: Knex; ledger: Ledger }): VideoReview {
  const { db } = deps;
  return {
    async list(filter) {
      const rows = await listAllTasks(db, filter);
      return { tasks: rows.slice(0, filter.limit), hasMore: rows.length > filter.limit };
    },

    async get(taskId) {
      return (await findTask(db, taskId)) ?? videoFailures.taskNotFound();
    },

    async resolve(taskId, resolution) {
      const amount = resolution.amount === undefined ? undefined : parseMicros(resolution.amount);
      const result = await resolveReview(deps, taskId, { ...resolution, amount });
      if ('resolved' in result) return result.resolved;
      switch (result.refused) {
        case 'not_found':
          return videoFailures.taskNotFound();
        case 'not_in_review':
          return videoFailures.notInReview(result.status);
        case 'amount_missing':
          return videoFailures.invalid('amount', 'Settling needs an amount.');
        case 'ledger':
          return result.action === 'settle'
            ? new Failure(result.error, `The reservation cannot be settled: ${result.error}.`, { param: 'amount' })
            : new Failure(result.error, `The reservation cannot be released: ${result.error}.`);
      }
    },
  };
}
