// The answer to a WebSocket warm-up (`response.create` with `generate: false`), which the gateway
// gives itself: the provider behind the bridge has no such mode, and a warm-up produces nothing.
// OpenAI answers one with a response that completes at once with no output and echoes the request's
// settings; Codex waits for its `response.completed` and continues the next turn from its id.

const NO_USAGE = {
  input_tokens: 0,
  input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
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
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model,
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: body.reasoning ?? null,
    store: body.store !== false,
    temperature: body.temperature ?? null,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? null,
    metadata: body.metadata ?? {},
  };
  return [
    { type: 'response.created', sequence_number: 0, response },
    { type: 'response.completed', sequence_number: 1, response: { ...response, status: 'completed', usage: NO_USAGE } },
  ];
}
