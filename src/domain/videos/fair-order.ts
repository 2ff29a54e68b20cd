// The order in which a provider's waiting tasks are sent: a fair share per customer. Each customer
// has turns (their oldest waiting task is their 1st turn, the next their 2nd...), and the queue
// serves everyone's 1st turns before anyone's 2nd, each round in order of acceptance. So a
// customer with 1,000 waiting tasks and one with 1 alternate; a newcomer waits at most one task
// per other waiting customer. Pure: queue.ts reads the rows (and computes queue positions in SQL
// by the same rule).

export interface WaitingTask {
  id: string;
  customer_id: string;
  /** The task's place in order of acceptance among the provider's waiting tasks (created_at, then id). */
  seq: number;
}

/** The tasks in dispatch order: by turn within their customer, then by acceptance. */
export function fairOrder<T extends WaitingTask>(tasks: readonly T[]): T[] {
  const byArrival = [...tasks].sort((a, b) => a.seq - b.seq);
  const turns = new Map<string, number>();
  const withTurn = byArrival.map((task) => {
    const turn = (turns.get(task.customer_id) ?? 0) + 1;
    turns.set(task.customer_id, turn);
    return { task, turn };
  });
  return withTurn.sort((a, b) => a.turn - b.turn || a.task.seq - b.task.seq).map(({ task }) => task);
}
