// The customer's video tasks with their status, cost and, once complete, the file: fetched
// through the gateway with the key in a header (a link cannot carry one), then saved.
import { publicApi, type PublicSchemas } from '../api/session.ts';
import { saveResponse } from '../ui/download.ts';
import { useAction, usePaged } from '../ui/hooks.ts';
import { Badge, Empty, ErrorNote, Loading, Money, Pager, Section, Time } from '../ui/parts.tsx';
import { href } from '../ui/router.ts';

type Task = PublicSchemas['VideoTask'];

export function Videos() {
  const list = usePaged(async (after) => {
    const page = await publicApi.get('/v1/videos', { query: { limit: 20, ...(after ? { after } : {}) } });
    return { items: page.data, next: page.has_more ? (page.last_id ?? undefined) : undefined };
  }, []);
  return (
    <>
      <h1>Videos</h1>
      <Section title="Your video tasks">
        <ErrorNote error={list.error} />
        {list.loading && list.items.length === 0 ? (
          <Loading what="video tasks" />
        ) : list.items.length === 0 && !list.error ? (
          <Empty>No video tasks yet.</Empty>
        ) : (
          <ul class="items">
            {list.items.map((task) => (
              <VideoItem key={task.id} task={task} />
            ))}
          </ul>
        )}
        <Pager loading={list.loading && list.items.length > 0} hasMore={list.hasMore} onMore={list.loadMore} count={list.items.length} />
      </Section>
    </>
  );
}

function VideoItem({ task }: { task: Task }) {
  const download = useAction(async () => {
    await saveResponse(await publicApi.fetch(`/v1/videos/${encodeURIComponent(task.id)}/content`), `${task.id}.mp4`);
    return true;
  });
  return (
    <li class="item" aria-label={`Video task ${task.id}`}>
      <div>
        <code>{task.id}</code> <Badge value={task.task_status} /> {task.model} · <a href={href('customer', 'requests', task.id)}>Receipt</a>
        {task.task_status === 'in_progress' || task.task_status === 'queued' ? <span class="small"> {task.progress}%</span> : null}
      </div>
      <p class="meta">
        created <Time at={task.created_at} /> · {task.seconds} s · {task.size}
        {task.billing ? (
          <span>
            {' '}
            · billed <Money amount={task.billing.amount} currency={task.billing.currency} />
          </span>
        ) : null}
        {task.completed_at ? (
          <span>
            {' '}
            · finished <Time at={task.completed_at} />
          </span>
        ) : null}
      </p>
      {task.prompt ? <p class="prompt">{task.prompt}</p> : null}
      {task.error ? <p class="meta">Why: {task.error.message}</p> : null}
      {task.task_status === 'review' ? <p class="hint">Being checked by the operator: the amount held is not charged until then.</p> : null}
      {task.task_status === 'completed' ? (
        <button type="button" class="secondary" disabled={download.busy} onClick={() => void download.run()}>
          {download.busy ? 'Downloading…' : 'Download video'}
        </button>
      ) : null}
      <ErrorNote error={download.error} />
    </li>
  );
}
