import type { Knex } from 'knex';

// Every response id the gateway relayed from an `openai-responses` provider (issue 26), with who
// owns it and the route that served it: only the owning customer may chain to it
// (`previous_response_id`), read, cancel or delete it, and a chained request goes to the same
// provider account. Nothing of the response's content is kept; `context_tokens` (input plus
// output as the provider reported them) sizes the hold of a request chained to it, whose earlier
// context the body does not carry.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('response_ids', (t) => {
    t.text('response_id').primary(); // the provider's id, verbatim (resp_...)
    t.text('customer_id').notNullable().references('customers.id');
    t.text('key_id').notNullable();
    t.text('provider_id').notNullable();
    t.text('model_id').notNullable();
    t.text('upstream_model').notNullable();
    t.text('request_id').notNullable();
    t.bigInteger('context_tokens');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index response_ids_customer_created on response_ids (customer_id, created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('response_ids');
}
