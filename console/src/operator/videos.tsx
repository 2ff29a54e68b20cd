// Video tasks by status; a task in `review` (its cost could not be confirmed) is settled by an
// amount or released here. The list is the API's newest 100 of the filter (it has no cursor).
import { useState } from 'preact/hooks';
import { adminApi, type AdminSchemas } from '../api/session.ts';
import { useLoad } from '../ui/hooks.ts';
import { Badge, Empty, ErrorNote, Field, Loading, Money, onSubmit, Section, Time } from '../ui/parts.tsx';
import { href } from '../ui/router.ts';
import { ResolveForm } from './resolve-form.tsx';

type Task = AdminSchemas['AdminVideoTask'];
type Status = Task['status'];
const STATUSES: Status[] = ['review', 'submitting', 'queued', 'in_progress', 'completed', 'failed', 'cancelled'];

export function VideoTasks() {
  const [filter, setFilter] = useState<{ status?: Status; customer_id?: string }>({ status: 'review' });
  const tasks = useLoad(() => adminApi.get('/admin/v1/video-tasks', { query: { limit: 100, ...filter } }), [filter]);
  return (
    <>
      <h1>Video tasks</h1>
      <Section title="Filters">
        <form
          class="inline"
          aria-label="Video task filters"
          onSubmit={onSubmit(({ status, customer_id }) =>
            setFilter({ ...(status ? { status: status as Status } : {}), ...(customer_id ? { customer_id } : {}) }),
          )}
        >
          <Field label="Status">
            <select name="status">
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
              <option value="">any</option>
            </select>
          </Field>
          <Field label="Customer id">
            <input name="customer_id" placeholder="cus_…" pattern="cus_[A-Za-z0-9]{1,64}" />
          </Field>
          <button type="submit">Apply</button>
        </form>
      </Section>
      <Section title="Tasks">
        <ErrorNote error={tasks.error} />
        {tasks.loading && !tasks.data ? (
          <Loading what="video tasks" />
        ) : tasks.data && tasks.data.data.length === 0 ? (
          <Empty>{filter.status === 'review' ? 'No task is waiting for review.' : 'No task matches.'}</Empty>
        ) : (
          <ul class="items">
            {tasks.data?.data.map((task) => (
              <TaskItem key={task.id} task={task} onResolved={tasks.reload} />
            ))}
          </ul>
        )}
        {tasks.data?.has_more ? <p class="hint">More tasks match: narrow the filter to see older ones.</p> : null}
      </Section>
    </>
  );
}

function TaskItem({ task, onResolved }: { task: Task; onResolved: () => void }) {
  const error = task.error && typeof task.error.message === 'string' ? task.error.message : null;
  return (
    <li class="item" aria-label={`Video task ${task.id}`}>
      <div>
        <code>{task.id}</code> <Badge value={task.status} /> {task.model} · <a href={href('operator', 'requests', task.id)}>Receipt</a>
      </div>
      <p class="meta">
        <code>{task.customer_id}</code> · created <Time at={task.created_at} /> · reserved <Money amount={task.reserved} /> · billed{' '}
        <Money amount={task.billed_amount} />
        {task.billed_seconds !== null ? ` (${task.billed_seconds} s ${task.billed_tier ?? ''})` : null} · price version {task.price_version}
      </p>
      {error ? <p class="meta">Why: {error}</p> : null}
      {task.status === 'review' ? (
        <ResolveForm
          label={`Resolve video task ${task.id}`}
          amountHint={`Settle only (required then): at most the reservation ${task.reserved} plus what the balance covers.`}
          resolve={(r) => adminApi.post('/admin/v1/video-tasks/{task_id}/resolve', { path: { task_id: task.id }, body: r })}
          onDone={onResolved}
        />
      ) : null}
    </li>
  );
}
