import type { Knex } from 'knex';

// Prices per customer and the upstream cost beside them (issue 37; docs/money.md, "Price plans"):
//
// - `price_plans`: an operator's plans (a name, a multiplier on list prices, overrides by exact
//   model id or pattern), `version` counting their changes. A customer has at most one
//   (`customers.plan_id`, none: list prices) and its own per-model overrides
//   (`customers.price_overrides`). A change to a plan row notifies the gateways on
//   `gateway_key_changes` ({"plan": id}), as a customer's change already does.
// - `pricing_audit`: every change to a plan or to a customer's pricing: who, when, old and new.
// - `price_versions` gains `scope` (`list`: the catalogue's; `plan:<id>` or `customer:<id>`: a
//   price a plan or a customer's override resolved for a model, frozen when first charged) and
//   `pricing` (the rule that made it), so a hold names one version whoever priced it.
// - `video_tasks.upstream_cost`: the serving route's cost, frozen at acceptance like the price.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('price_plans', (t) => {
    t.text('id').primary(); // plan_<base62>
    t.text('name').notNullable().unique();
    t.text('description');
    t.text('multiplier'); // a decimal string; null: list prices for models no override names
    t.jsonb('overrides').notNullable().defaultTo('[]');
    t.integer('version').notNullable().defaultTo(1);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.alterTable('customers', (t) => {
    t.text('plan_id').references('price_plans.id');
    t.jsonb('price_overrides');
    t.index(['plan_id']);
  });
  await knex.schema.createTable('pricing_audit', (t) => {
    t.bigIncrements('id').primary();
    t.text('subject_type').notNullable(); // plan | customer
    t.text('subject_id').notNullable();
    t.text('action').notNullable(); // created | updated | deleted
    t.text('actor').notNullable();
    t.jsonb('old');
    t.jsonb('new');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['subject_id', 'id']);
  });
  await knex.schema.alterTable('price_versions', (t) => {
    t.text('scope').notNullable().defaultTo('list');
    t.jsonb('pricing');
    t.dropUnique(['model_id', 'version']);
    t.unique(['model_id', 'scope', 'version']);
    t.index(['model_id', 'scope', 'price_hash']);
  });
  await knex.schema.alterTable('video_tasks', (t) => {
    t.jsonb('upstream_cost');
  });
  await knex.raw(`create trigger price_plans_changed after update or delete on price_plans
    for each row execute function gateway_key_changed('plan')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger price_plans_changed on price_plans');
  await knex.schema.alterTable('video_tasks', (t) => t.dropColumn('upstream_cost'));
  await knex('price_versions').whereNot({ scope: 'list' }).delete();
  await knex.schema.alterTable('price_versions', (t) => {
    t.dropIndex(['model_id', 'scope', 'price_hash']);
    t.dropUnique(['model_id', 'scope', 'version']);
    t.unique(['model_id', 'version']);
    t.dropColumn('pricing');
    t.dropColumn('scope');
  });
  await knex.schema.dropTable('pricing_audit');
  await knex.schema.alterTable('customers', (t) => {
    t.dropIndex(['plan_id']);
    t.dropColumn('price_overrides');
    t.dropColumn('plan_id');
  });
  await knex.schema.dropTable('price_plans');
}
