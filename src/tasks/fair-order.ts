// The order in which a provider's waiting tasks are sent: a fair share per customer, round-robin.
// Each customer's waiting tasks are their turns (oldest first); everyone's 1st turn comes before
// anyone's 2nd, and within a round the customer served longest ago (or never) goes first, then
// the one whose oldest task waits longest. So a customer with 1,000 waiting tasks and one with 1
// alternate even when a single slot frees at a time, and a newcomer waits at most one task per
// other waiting customer. Pure: queue.ts reads the rows, and computes queue positions in SQL by
// the same rule.

export interface WaitingTask {
  id: string;
  customer_id: string;
  /** The task's place in order of acceptance among the provider's waiting tasks (created_at, then id). */
  seq: number;
  /** When the customer last had a task of this provider sent, as a rank: lower is longer ago; never is lowest. */
  served: number;
}

/** The tasks in dispatch order: by turn within their customer, then by who was served longest ago, then by who waits longest. */
export function fairOrder<T extends WaitingTask>(tasks: readonly T[]): T[] {
  const byArrival = [...tasks].sort((a, b) => a.seq - b.seq);
  const turns = new Map<string, number>();
  const firstSeq = new Map<string, number>();
  const keyed = byArrival.map((task) => {
    const turn = (turns.get(task.customer_id) ?? 0) + 1;
    turns.set(task.customer_id, turn);
    if (!firstSeq.has(task.customer_id)) firstSeq.set(task.customer_id, task.seq);
    return { task, turn, first: firstSeq.get(task.customer_id)! };
  });
  return keyed.sort((a, b) => a.turn - b.turn || a.task.served - b.task.served || a.first - b.first).map(({ task }) => task);
}
