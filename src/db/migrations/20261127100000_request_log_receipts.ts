import type { Knex } from 'knex';

// What a receipt needs beyond the journal (issue 28), recorded on the request's log row at settle:
// the price version it was priced at (a grant's charge entry names none), what was held and from
// where (a draw from a grant that delivered nothing leaves no journal row), the free units held
// and spent, the debt recorded, why usage was estimated, and the provider's usage object as it
// reported it. Never prompts or outputs.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_logs', (t) => {
    t.bigInteger('price_version_id');
    t.bigInteger('hold_amount');
    t.text('hold_source');
    t.bigInteger('free_units_held');
    t.bigInteger('free_units');
    t.bigInteger('free_amount');
    t.bigInteger('debt');
    t.text('estimate_reason');
    t.jsonb('upstream_usage');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('request_logs', (t) => {
    for (const column of [
      'price_version_id',
      'hold_amount',
      'hold_source',
      'free_units_held',
      'free_units',
      'free_amount',
      'debt',
      'estimate_reason',
      'upstream_usage',
    ])
      t.dropColumn(column);
  });
}
