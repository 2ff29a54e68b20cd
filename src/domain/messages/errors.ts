import type { Problem } from '../../http/problem.ts';
import type { UpstreamError } from '../../providers/types.ts';

/** A failure of a messages request, in the terms the client will see (Anthropic shape). */
export const messageProblems = {
  modelNotFound: (model: string): Problem => ({
    status: 404,
    type: 'not_found_error',
    anthropicType: 'not_found_error',
    message: `model: \`${model}\` does not exist or you do not have access to it.`,
  }),
  wrongGroup: (model: string, group: string): Problem => ({
    status: 400,
    type: 'invalid_request_error',
    message:
      group === 'chat'
        ? `\`${model}\` is served through the chat completions API; call /v1/chat/completions instead of /v1/messages.`
        : `\`${model}\` is a video model; create video tasks with POST /v1/videos.`,
  }),
  noRoute: (model: string): Problem => ({ status: 500, type: 'api_error', message: `No provider can serve \`${model}\` right now.` }),
  insufficientBalance: (): Problem => ({
    status: 402,
    type: 'billing_error',
    anthropicType: 'billing_error',
    message: 'Your balance is too low for this request (its input plus max_tokens). Top up, or lower max_tokens.',
  }),
};

/**
 * The client's view of an upstream failure: Anthropic's own status and error type where the
 * provider sent one (with its message, upstream model names replaced), else a gateway error.
 * Provider hosts, credentials and request ids never appear.
 */
export function upstreamProblem(error: UpstreamError, upstreamModel: string, publicModel: string): Problem {
  if (error.kind === 'timeout') return { status: 504, type: 'timeout_error', anthropicType: 'timeout_error', message: 'The provider did not answer in time.' };
  if (error.kind !== 'status' || !error.status) return { status: 502, type: 'api_error', message: 'The provider could not be reached.' };
  let type: string | undefined;
  let message: string | undefined;
  try {
    const body = JSON.parse(error.body ?? '') as { error?: { type?: unknown; message?: unknown } };
    if (typeof body.error?.type === 'string') type = body.error.type;
    if (typeof body.error?.message === 'string') message = body.error.message.split(upstreamModel).join(publicModel);
  } catch {
    /* not JSON: fall back to the status */
  }
  const status = error.status === 401 || error.status === 403 ? 502 : error.status; // our credential, not the client's
  return {
    status,
    type: type ?? 'api_error',
    ...(type && status === error.status ? { anthropicType: type as Problem['anthropicType'] } : {}),
    message: status === 502 && error.status !== 502 ? 'The provider refused the gateway.' : message ?? `The provider answered ${error.status}.`,
  };
}
