// The only way out of review: an operator settles the task by an amount or releases its hold, with
// who and why recorded in the journal. Any kind's task; the money moves first, then the status
// (guarded by review), so a repeated resolve takes effect once.
import type { Knex } from 'knex';
import { isLedgerError, type LedgerError } from '../ledger/errors.ts';
import type { Ledger } from '../ledger/service.ts';
import { TaskStatus, type TaskRow } from './model.ts';
import { transition } from './repo.ts';
import { findTask } from './rows.ts';

export interface Resolution {
  action: 'settle' | 'release';
  /** Micro-units, for a settle. */
  amount?: bigint;
  actor: string;
  reason: string;
}

export type Resolved =
  | { resolved: TaskRow }
  | { refused: 'not_found' }
  | { refused: 'not_in_review'; status: TaskStatus }
  | { refused: 'amount_missing' }
  /** The ledger would not settle or release the hold (its reason). */
  | { refused: 'ledger'; action: Resolution['action']; error: LedgerError };

export async function resolveReview(deps: { db: Knex; ledger: Ledger }, taskId: string, resolution: Resolution): Promise<Resolved> {
  const { db, ledger } = deps;
  const task = await findTask(db, taskId);
  if (!task) return { refused: 'not_found' };
  if (task.status !== TaskStatus.Review) return { refused: 'not_in_review', status: task.status };
  const purpose = { resolved_by: resolution.actor, reason: resolution.reason };
  if (resolution.action === 'settle') {
    if (resolution.amount === undefined) return { refused: 'amount_missing' };
    const settled = await ledger.settle({ ref: taskId, charge: { amount: resolution.amount }, purpose });
    if (isLedgerError(settled)) return { refused: 'ledger', action: 'settle', error: settled };
    await transition(db, taskId, TaskStatus.Review, {
      status: TaskStatus.Completed,
      billed_amount: (settled.charged + settled.debt).toString(), // what the output cost: posted, and any debt
      completed_at: db.fn.now(),
      error: null,
    });
  } else {
    const released = await ledger.release({ ref: taskId, purpose });
    if (isLedgerError(released)) return { refused: 'ledger', action: 'release', error: released };
    await transition(db, taskId, TaskStatus.Review, {
      status: TaskStatus.Failed,
      completed_at: db.fn.now(),
      error: JSON.stringify({ code: 'released_after_review', message: resolution.reason }),
    });
  }
  return { resolved: (await findTask(db, taskId))! };
}
