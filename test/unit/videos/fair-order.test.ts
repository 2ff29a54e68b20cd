import { expect } from 'chai';
import fc from 'fast-check';
import { fairOrder, type WaitingTask } from '../../../src/domain/videos/fair-order.ts';

/** Tasks in order of acceptance, named `<customer><n>`. */
const accepted = (...customers: string[]): WaitingTask[] => {
  const counts = new Map<string, number>();
  return customers.map((customer, i) => {
    const n = (counts.get(customer) ?? 0) + 1;
    counts.set(customer, n);
    return { id: `${customer}${n}`, customer_id: customer, seq: i + 1 };
  });
};
const ids = (tasks: WaitingTask[]) => tasks.map((t) => t.id);

describe("the gateway queue's fair order", () => {
  it('one customer: first accepted, first sent', () => {
    expect(ids(fairOrder(accepted('a', 'a', 'a')))).to.deep.equal(['a1', 'a2', 'a3']);
  });

  it("one customer's 1,000 waiting tasks do not starve another's one: it is sent second", () => {
    const tasks = accepted(...Array<string>(1000).fill('big'), 'small');
    const order = ids(fairOrder(tasks));
    expect(order.slice(0, 3)).to.deep.equal(['big1', 'small1', 'big2']);
    expect(order).to.have.length(1001);
  });

  it('round-robin by turn, each turn in order of acceptance, whatever order the rows come in', () => {
    const tasks = accepted('a', 'a', 'a', 'b', 'c', 'c', 'b');
    const order = ids(fairOrder([...tasks].reverse()));
    expect(order).to.deep.equal(['a1', 'b1', 'c1', 'a2', 'c2', 'b2', 'a3']);
  });

  it('any arrivals: a permutation, each customer in its own order, and no customer two tasks ahead of another still waiting', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 60 }), (customers) => {
        const tasks = accepted(...customers);
        const order = fairOrder(tasks);
        expect([...ids(order)].sort()).to.deep.equal([...ids(tasks)].sort());
        const total = new Map<string, number>();
        for (const t of tasks) total.set(t.customer_id, (total.get(t.customer_id) ?? 0) + 1);
        const sent = new Map<string, number>();
        for (const task of order) {
          const mine = (sent.get(task.customer_id) ?? 0) + 1;
          expect(task.id).to.equal(`${task.customer_id}${mine}`); // its own tasks in order
          sent.set(task.customer_id, mine);
          // Everyone who still had a task waiting has had at least mine - 1 sent by now.
          for (const [other, count] of total) if (count >= mine - 1) expect(sent.get(other) ?? 0).to.be.at.least(mine - 1);
        }
      }),
    );
  });
});
