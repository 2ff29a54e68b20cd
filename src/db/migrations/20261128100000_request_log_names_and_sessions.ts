import type { Knex } from 'knex';

// What a coding agent's request looked like before the gateway resolved it (issue 35): the model
// name the client sent (an alias or a name a pattern matched; `model` keeps the id billed), the
// client's session id (Claude Code's X-Claude-Code-Session-Id, Codex's session_id; routes keep a
// session on one account), and, when the gateway lowered max_tokens to a substitute's output cap,
// what the client asked for and what was sent.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_logs', (t) => {
    t.text('requested_model');
    t.text('session_id');
    t.integer('max_tokens_requested');
    t.integer('max_tokens_capped');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_logs', (t) => {
    for (const column of ['requested_model', 'session_id', 'max_tokens_requested', 'max_tokens_capped']) t.dropColumn(column);
  });
}
