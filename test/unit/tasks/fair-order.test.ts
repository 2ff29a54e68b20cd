import { expect } from 'chai';
import fc from 'fast-check';
import { fairOrder, type WaitingTask } from '../../../src/tasks/fair-order.ts';

/** Tasks in order of acceptance, named `<customer><n>`; `served`: ranks of when customers were last served (default: never). */
const accepted = (customers: string[], served: Record<string, number> = {}): WaitingTask[] => {
  const counts = new Map<string, number>();
  return customers.map((customer, i) => {
    const n = (counts.get(customer) ?? 0) + 1;
    counts.set(customer, n);
    return { id: `${customer}${n}`, customer_id: customer, seq: i + 1, served: served[customer] ?? 1 };
  });
};
/** Sends the first task of `order` and gives its customer the newest turn, as the dispatcher and video_queue_turns do. */
function sendOneAtATime(tasks: WaitingTask[]): string[] {
  const sent: string[] = [];
  let waiting = tasks;
  const served: Record<string, number> = {};
  let clock = 1;
  while (waiting.length > 0) {
    const next = fairOrder(waiting.map((t) => ({ ...t, served: served[t.customer_id] ?? 0 })))[0]!;
    sent.push(next.id);
    served[next.customer_id] = ++clock;
    waiting = waiting.filter((t) => t.id !== next.id);
  }
  return sent;
}
const ids = (tasks: WaitingTask[]) => tasks.map((t) => t.id);

describe("the gateway queue's fair order", () => {
  it('one customer: first accepted, first sent', () => {
    expect(ids(fairOrder(accepted(['a', 'a', 'a'])))).to.deep.equal(['a1', 'a2', 'a3']);
  });

  it("one customer's 1,000 waiting tasks do not starve another's one: it is sent second", () => {
    const tasks = accepted([...Array<string>(1000).fill('big'), 'small']);
    const order = ids(fairOrder(tasks));
    expect(order.slice(0, 3)).to.deep.equal(['big1', 'small1', 'big2']);
    expect(order).to.have.length(1001);
  });

  it('round-robin by turn, each turn in order of acceptance, whatever order the rows come in', () => {
    const tasks = accepted(['a', 'a', 'a', 'b', 'c', 'c', 'b']);
    const order = ids(fairOrder([...tasks].reverse()));
    expect(order).to.deep.equal(['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3']);
  });

  it('within a turn, the customer served longest ago goes first, then the one waiting longest', () => {
    // a was served a moment ago, c never, b before a.
    const order = ids(fairOrder(accepted(['a', 'b', 'c', 'a', 'b'], { a: 3, b: 2, c: 1 })));
    expect(order).to.deep.equal(['c1', 'b1', 'a1', 'b2', 'a2']);
  });

  it('one slot at a time: the customers still alternate (a turn is remembered once served)', () => {
    expect(sendOneAtATime(accepted(['big', 'big', 'big', 'big', 'small', 'small']))).to.deep.equal(['big1', 'small1', 'big2', 'small2', 'big3', 'big4']);
  });

  it('any arrivals, sent one at a time: each customer in its own order, and no customer two tasks ahead of another still waiting', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 60 }), (customers) => {
        const tasks = accepted(customers);
        const order = sendOneAtATime(tasks);
        expect([...order].sort()).to.deep.equal([...ids(tasks)].sort());
        const total = new Map<string, number>();
        for (const t of tasks) total.set(t.customer_id, (total.get(t.customer_id) ?? 0) + 1);
        const sent = new Map<string, number>();
        for (const id of order) {
          const customer = id.replace(/\d+$/, '');
          const mine = (sent.get(customer) ?? 0) + 1;
          expect(id).to.equal(`${customer}${mine}`); // its own tasks in order
          sent.set(customer, mine);
          // Everyone who still had a task waiting has had at least mine - 1 sent by now.
          for (const [other, count] of total) if (count >= mine - 1) expect(sent.get(other) ?? 0).to.be.at.least(mine - 1);
        }
      }),
    );
  });

  it('any arrivals, sent in one batch: the same order as one at a time', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 60 }), (customers) => {
        const tasks = accepted(customers);
        expect(ids(fairOrder(tasks))).to.deep.equal(sendOneAtATime(tasks));
      }),
    );
  });
});
