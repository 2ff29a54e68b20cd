// What the simulated Responses upstream remembers of the responses it made (one book per provider
// account, as at OpenAI: another account does not know them): stored responses (`store` not
// false) and background ones, which move queued -> in_progress -> a final status over time.
import type { Answer } from './answer.ts';
import type { ResponsesSimBehaviour } from './directives.ts';

export interface SimResponse {
  id: string;
  body: Record<string, unknown>;
  behaviour: ResponsesSimBehaviour;
  /** The final Response object (a background one's, once it finishes). */
  final: Record<string, unknown>;
  answer: Answer;
  /** The input as items with ids (GET .../input_items). */
  inputItems: Array<Record<string, unknown>>;
  /** Input plus output tokens: what a request chained to this one carries. */
  contextTokens: number;
  createdMs: number;
  cancelledAt?: number;
}

/** Background phases: queued for `queued_ms` (default 300), in progress for `running_ms` (default 600). */
export function phaseOf(response: SimResponse, now = Date.now()): 'queued' | 'in_progress' | 'done' | 'cancelled' {
  if (response.cancelledAt !== undefined) return 'cancelled';
  const queued = response.behaviour.queuedMs ?? 300;
  const running = response.behaviour.runningMs ?? 600;
  if (now < response.createdMs + queued) return 'queued';
  if (now < response.createdMs + queued + running) return 'in_progress';
  return 'done';
}

/** The input as items, each with an id (a string input is one user message). */
export function inputItemsOf(input: unknown, id: (prefix: string) => string): Array<Record<string, unknown>> {
  if (typeof input === 'string') return [{ id: id('msg'), type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: input }] }];
  if (!Array.isArray(input)) return [];
  return input.map((item) => {
    const record = item && typeof item === 'object' && !Array.isArray(item) ? (item as Record<string, unknown>) : {};
    const type = typeof record.type === 'string' ? record.type : 'message';
    // An easy input message's string content is listed as one input_text part, as OpenAI lists it.
    const content =
      type === 'message' && typeof record.content === 'string' ? { content: [{ type: 'input_text', text: record.content }], status: 'completed' } : {};
    return { id: typeof record.id === 'string' ? record.id : id(type === 'message' ? 'msg' : 'item'), ...record, type, ...content };
  });
}
