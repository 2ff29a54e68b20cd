// What a Responses WebSocket remembers between turns: its most recent response that the provider
// does not keep (a `store: false` turn, or a `generate: false` warm-up the gateway answered
// itself), as the input items it was sent with and the output items it produced. A turn whose
// `previous_response_id` names that response is sent to the provider (over HTTP, which knows
// nothing of the socket) with those items before its own input and without the id, or with the id
// that response itself continued, which the provider does keep. OpenAI's WebSocket mode keeps
// the same one response per connection; an older `store: false` id is the provider's to refuse.
import { randomBase62 } from '../../../shared/ids.ts';
import { removeTopLevelMember, setTopLevelMember } from '../../../shared/json-splice.ts';
import { isRecord } from '../fields.ts';
import type { ClientTurn } from './client-event.ts';

interface Remembered {
  id: string;
  /** Input items, then output items, in the order the provider saw and produced them. */
  items: unknown[];
  /** The response it continued that the provider keeps (its own previous_response_id, if any). */
  previous: string | undefined;
}

/** The input of a body as items: a string input is one user message. */
function inputItems(body: Record<string, unknown>): unknown[] {
  const input = body.input;
  if (Array.isArray(input)) return input;
  if (input === undefined || input === null) return [];
  return [{ type: 'message', role: 'user', content: input }];
}

export class Continuation {
  private last: Remembered | undefined;

  /** `maxBytes`: a context larger than this is not remembered (BODY_LIMIT_BYTES bounds each connection's memory). */
  constructor(private readonly maxBytes: number) {}

  /** The turn as the provider must see it: the remembered context spliced in when it continues it. */
  expand(turn: ClientTurn): ClientTurn {
    const last = this.last;
    if (!last || turn.body.previous_response_id !== last.id) return turn;
    const items = [...last.items, ...inputItems(turn.body)];
    const body: Record<string, unknown> = { ...turn.body, input: items };
    if (last.previous === undefined) delete body.previous_response_id;
    else body.previous_response_id = last.previous;
    let text = setTopLevelMember(turn.text, 'input', JSON.stringify(items));
    if (text !== undefined)
      text =
        last.previous === undefined
          ? removeTopLevelMember(text, 'previous_response_id', JSON.stringify(last.id))
          : setTopLevelMember(text, 'previous_response_id', JSON.stringify(last.previous));
    return { ...turn, body, text: text ?? JSON.stringify(body) };
  }

  /** A warm-up (the turn expanded first): a response id of the gateway's own, continuable on this connection. */
  warmup(turn: ClientTurn): string {
    const id = `resp_gw${randomBase62(40)}`;
    this.remember(id, turn, []);
    return id;
  }

  /** A turn the provider answered (expanded first) and the output items it produced. */
  answered(id: string, turn: ClientTurn, output: unknown[]): void {
    if (turn.body.store === false) this.remember(id, turn, output);
    else this.last = undefined; // the provider keeps it: a turn continuing it names it as it is
  }

  private remember(id: string, turn: ClientTurn, output: unknown[]): void {
    const items = [...inputItems(turn.body), ...output];
    const previous = typeof turn.body.previous_response_id === 'string' ? turn.body.previous_response_id : undefined;
    const size = turn.text.length + JSON.stringify(output).length;
    this.last = size <= this.maxBytes ? { id, items, previous } : undefined;
  }
}

/** Collects the output items of a streamed response from its events (the terminal event's list, else each item as done). */
export class OutputCollector {
  private readonly done: unknown[] = [];
  private final: unknown[] | undefined;
  id: string | undefined;
  status: string | undefined;

  observe(event: Record<string, unknown>): void {
    if (event.type === 'response.output_item.done' && isRecord(event.item)) {
      const index = typeof event.output_index === 'number' ? event.output_index : this.done.length;
      this.done[index] = event.item;
      return;
    }
    if (!isRecord(event.response)) return;
    const response = event.response;
    if (typeof response.id === 'string') this.id ??= response.id;
    if (typeof event.type === 'string' && /^response\.(completed|incomplete|failed)$/.test(event.type)) {
      this.status = event.type.slice('response.'.length);
      if (Array.isArray(response.output) && response.output.length > 0) this.final = response.output;
    }
  }

  /** The output, once the response completed or stopped incomplete (a failed one is not continued). */
  output(): unknown[] | undefined {
    if (this.status !== 'completed' && this.status !== 'incomplete') return undefined;
    return this.final ?? this.done.filter((item) => item !== undefined);
  }
}
