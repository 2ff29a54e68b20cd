// The answer to a WebSocket warm-up (`response.create` with `generate: false`), which the gateway
// gives itself: the provider behind the bridge has no such mode, and a warm-up produces nothing.
// OpenAI answers one with a response that completes at once with no output; Codex waits for its
// `response.completed` and continues the next turn from its id.

const NO_USAGE = {
  input_tokens: 0,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 0,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 0,
};

/** The events of a warm-up, as the data of each message: `response.created`, then `response.completed`. */
export function warmupEvents(id: string, model: string, body: Record<string, unknown>): Array<Record<string, unknown>> {
  const response = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    model,
    output: [],
    previous_response_id: typeof body.previous_response_id === 'string' ? body.previous_response_id : null,
    store: body.store !== false,
    usage: null,
  };
  return [
    { type: 'response.created', sequence_number: 0, response },
    { type: 'response.completed', sequence_number: 1, response: { ...response, status: 'completed', usage: NO_USAGE } },
  ];
}
