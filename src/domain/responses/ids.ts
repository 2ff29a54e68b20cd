// The response ids the gateway relayed, their owners and routes (table response_ids). A row is
// written as soon as the provider names the response (its first event, or the JSON answer), so a
// client that chains to it right away finds it: a lookup in this process first waits for a write
// of that id still under way. Nothing of the response's content is stored.
import type { Knex } from 'knex';
import type { Logger } from '../../logger.ts';

export interface ResponseIdRow {
  response_id: string;
  customer_id: string;
  key_id: string;
  provider_id: string;
  model_id: string;
  upstream_model: string;
  request_id: string;
  context_tokens: number | null;
}

export interface ResponseIds {
  /** Records a relayed id (a second record of the same id changes nothing). */
  record(row: Omit<ResponseIdRow, 'context_tokens'>): void;
  /** Notes the context a request chained to the response carries. */
  usage(responseId: string, contextTokens: number): void;
  /** The row of an id the customer owns; undefined for anyone else's, or an id never relayed. */
  owned(customerId: string, responseId: string): Promise<ResponseIdRow | undefined>;
  forget(responseId: string): Promise<void>;
  /** Resolves once every write started so far is done (tests, shutdown). */
  flush(): Promise<void>;
}

/** An id a provider could have given: printable ASCII, bounded (PostgreSQL refuses NUL in text). */
const PLAUSIBLE_ID = /^[\x21-\x7e]{1,256}$/;

export function createResponseIds(deps: { db: Knex; logger: Logger }): ResponseIds {
  /** Writes under way, by response id. */
  const writing = new Map<string, Promise<void>>();
  /** Runs `write` after the writes of the same id before it (an update must not overtake its insert). */
  const track = (responseId: string, write: () => PromiseLike<unknown>) => {
    const chained = (writing.get(responseId) ?? Promise.resolve())
      .then(() => write())
      .then(
        () => undefined,
        (error: unknown) => deps.logger.error({ err: error, response_id: responseId }, 'response id not recorded'),
      );
    writing.set(responseId, chained);
    void chained.then(() => writing.get(responseId) === chained && writing.delete(responseId));
  };

  return {
    record(row) {
      if (!PLAUSIBLE_ID.test(row.response_id)) return deps.logger.warn({ request_id: row.request_id }, 'response id not recorded: not printable ASCII');
      track(row.response_id, () => deps.db('response_ids').insert(row).onConflict('response_id').ignore());
    },
    usage(responseId, contextTokens) {
      track(responseId, () => deps.db('response_ids').where({ response_id: responseId }).update({ context_tokens: contextTokens }));
    },
    async owned(customerId, responseId) {
      if (!PLAUSIBLE_ID.test(responseId)) return undefined; // never one the gateway relayed
      await writing.get(responseId);
      const row = await deps.db<ResponseIdRow>('response_ids').where({ response_id: responseId, customer_id: customerId }).first();
      return row ? { ...row, context_tokens: row.context_tokens === null ? null : Number(row.context_tokens) } : undefined;
    },
    async forget(responseId) {
      await writing.get(responseId);
      await deps.db('response_ids').where({ response_id: responseId }).delete();
    },
    async flush() {
      await Promise.all([...writing.values()]);
    },
  };
}
