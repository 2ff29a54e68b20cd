// A third task kind in one file: image generation jobs on an upstream that answers a job id at
// once and the number of images when done, priced per image. Registered only by the test that
// uses it (third-kind.test.ts); what it shows is that the engine asks nothing more of a kind.
import type { TaskKind, TaskOutcome } from '../../../src/tasks/kind.ts';
import { TaskStatus } from '../../../src/tasks/model.ts';
import { UpstreamError } from '../../../src/providers/types.ts';

export interface ImageRequest {
  prompt: string;
  n: number;
}

export interface ImagePrice {
  /** Micro-units per delivered image. */
  per_image: string;
  currency: string;
}

export const imageTaskKind: TaskKind<ImageRequest, ImagePrice> = {
  name: 'image',

  async submit(task, provider) {
    const answer = await fetch(`${provider.baseUrl}/images/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.credential()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: task.upstream_model, ...task.request }),
    }).catch(() => undefined);
    if (!answer) return { outcome: 'unconfirmed', message: 'The image provider did not answer.' };
    const text = await answer.text();
    const headers = Object.fromEntries(answer.headers);
    if (answer.status === 429) return { outcome: 'busy', cause: new UpstreamError('status', true, 429, text, undefined, headers) };
    if (!answer.ok)
      return {
        outcome: 'refused',
        error: { code: 'upstream_rejected', message: 'The image provider refused the job.' },
        cause: new UpstreamError('status', false, answer.status, text),
      };
    return { outcome: 'accepted', upstreamId: (JSON.parse(text) as { id: string }).id };
  },

  async poll(task, provider): Promise<TaskOutcome> {
    const answer = await fetch(`${provider.baseUrl}/images/jobs/${task.upstream_task_id}`, {
      headers: { authorization: `Bearer ${provider.credential()}` },
    }).catch(() => undefined);
    if (!answer?.ok) return { outcome: 'retry' };
    const job = (await answer.json()) as { status: string; images?: number };
    const seen = { upstream_status: job.status, result: JSON.stringify(job) };
    if (job.status === 'queued' || job.status === 'running')
      return { outcome: 'running', status: job.status === 'queued' ? TaskStatus.Queued : TaskStatus.InProgress, seen };
    if (job.status === 'failed')
      return { outcome: 'release', status: TaskStatus.Failed, reason: 'upstream failed', error: { code: 'failed', message: 'The job failed.' }, seen };
    if (job.status !== 'succeeded' || typeof job.images !== 'number')
      return { outcome: 'review', code: 'no_usage', message: 'The provider did not say how many images it made.', seen };
    return { outcome: 'settle', charge: { amount: BigInt(job.images) * BigInt(task.price.per_image) }, purpose: { images: job.images }, seen };
  },
};
