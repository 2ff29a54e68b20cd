// DashScope's task statuses (GET /api/v1/tasks/{task_id}, output.task_status) in the platform's
// terms. Cancel is possible only while PENDING.
import type { VideoPoll } from '../video.ts';

export const STATUS: Record<string, VideoPoll['status']> = {
  PENDING: 'queued',
  RUNNING: 'in_progress',
  SUCCEEDED: 'completed',
  FAILED: 'failed',
  CANCELED: 'cancelled',
  // UNKNOWN: the task does not exist, or is past its 24-hour retention. Nothing says whether it
  // ran, produced a video or was billed, so it is never read as failed (that would release a hold
  // the provider may have charged us for): the task goes to review, with the reason below.
  UNKNOWN: 'unknown',
};

/** Why an UNKNOWN task goes to review, for the customer and the operator. */
export const UNKNOWN_TASK = {
  code: 'upstream_task_unknown',
  message:
    'The provider no longer knows the task (not found, or past its 24-hour retention), so whether it produced a video cannot be confirmed; an operator settles or releases it.',
};
