// The simulated Responses upstream's calls on responses it made: GET (a background one shows its
// phase), DELETE, cancel (background ones only, before they finish), input_items. Another
// account's id, a deleted one or one made with `store: false` is OpenAI's 404.
import { errorBody, responseObject } from './answer.ts';
import { phaseOf, type SimResponse } from './store.ts';

type Send = (status: number, payload: unknown) => void;

const notFound = (id: string) => errorBody(404, { message: `Response with id '${id}' not found.`, param: 'response_id', code: null });

/** The response as it stands now: a background one's phase, or its final object. */
export function currentResponse(response: SimResponse): Record<string, unknown> {
  const head = { id: response.id, createdAt: response.final.created_at as number, body: response.body, tier: String(response.final.service_tier) };
  const phase = phaseOf(response);
  if (response.body.background !== true || phase === 'done') return response.final;
  if (phase === 'cancelled') return responseObject({ ...head, status: 'cancelled' });
  return responseObject({ ...head, status: phase });
}

export function routeStored(method: string, path: string, responses: Map<string, SimResponse>, send: Send): void {
  const match = /^\/responses\/([^/]+)(\/cancel|\/input_items)?$/.exec(path);
  if (!match) return send(404, errorBody(404, { message: `Invalid URL (${method} /v1${path})`, code: null }));
  const id = decodeURIComponent(match[1]!);
  const response = responses.get(id);
  if (!response) return send(404, notFound(id));
  const action = `${method} ${match[2] ?? ''}`;
  if (action === 'GET ') return send(200, currentResponse(response));
  if (action === 'DELETE ') {
    responses.delete(id);
    return send(200, { id, object: 'response', deleted: true });
  }
  if (action === 'POST /cancel') {
    if (response.body.background !== true)
      return send(400, errorBody(400, { message: 'Only responses created with background=true can be cancelled.', param: 'response_id', code: null }));
    const phase = phaseOf(response);
    if (phase === 'done') return send(400, errorBody(400, { message: `Cannot cancel a response with status '${String(response.final.status)}'.`, code: null }));
    if (phase !== 'cancelled') response.cancelledAt = Date.now();
    return send(200, currentResponse(response));
  }
  if (action === 'GET /input_items') {
    const data = [...response.inputItems].reverse(); // newest first, OpenAI's default order
    return send(200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });
  }
  send(405, errorBody(405, { message: `Method ${method} not allowed on /v1${path}.`, code: null }));
}
