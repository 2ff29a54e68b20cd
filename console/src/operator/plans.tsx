// Price plans: every plan with its customers, and a new one. A plan's own screen is plan.tsx.
import { adminApi } from '../api/session.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { Empty, ErrorNote, Field, Loading, onSubmit, Section, Table, Time } from '../ui/parts.tsx';
import { go, href } from '../ui/router.ts';
import { OverridesField, parseOverrides } from './plan-form.tsx';

export function Plans() {
  const plans = useLoad(() => adminApi.get('/admin/v1/plans', {}), []);
  const create = useAction(async (fields: Record<string, string>) =>
    adminApi.post('/admin/v1/plans', {
      body: {
        name: fields.name ?? '',
        ...(fields.description ? { description: fields.description } : {}),
        ...(fields.multiplier ? { multiplier: fields.multiplier } : {}),
        overrides: parseOverrides(fields.overrides ?? ''),
        ...(fields.actor ? { actor: fields.actor } : {}),
      },
    }),
  );
  const list = plans.data?.data;
  return (
    <>
      <h1>Price plans</h1>
      <p class="hint">
        A customer on a plan pays, for each model, the first rule that names it: its own override, the plan&apos;s override of the exact model, the plan&apos;s
        most specific pattern, the plan&apos;s multiplier of list prices, else the list price. Work already held keeps its price.
      </p>
      <Section title="Plans">
        <ErrorNote error={plans.error} />
        {!list ? (
          plans.loading ? (
            <Loading what="plans" />
          ) : null
        ) : list.length === 0 ? (
          <Empty>No plan yet: every customer pays the list prices.</Empty>
        ) : (
          <Table
            caption="Plans"
            rows={list}
            rowKey={(p) => p.id}
            columns={[
              { label: 'Name', cell: (p) => <a href={href('operator', 'plans', p.id)}>{p.name}</a> },
              { label: 'Multiplier', cell: (p) => p.multiplier ?? 'list prices' },
              { label: 'Overrides', class: 'num', cell: (p) => String(p.overrides.length) },
              { label: 'Customers', class: 'num', cell: (p) => String(p.customers) },
              { label: 'Version', class: 'num', cell: (p) => String(p.version) },
              { label: 'Changed', cell: (p) => <Time at={p.updated_at} /> },
            ]}
          />
        )}
      </Section>
      <Section title="New plan">
        <form
          aria-label="New plan"
          onSubmit={onSubmit(async (fields) => {
            const created = await create.run(fields);
            if (created) go('operator', 'plans', created.id);
          })}
        >
          <Field label="Plan name">
            <input name="name" required maxLength={100} />
          </Field>
          <Field label="Description" hint="Optional.">
            <input name="description" maxLength={500} />
          </Field>
          <Field label="Multiplier of list prices" hint="Optional, e.g. 0.8 (20 % off) or 1.25; empty: list prices for models no override names.">
            <input name="multiplier" inputMode="decimal" pattern="[0-9]{1,4}(\.[0-9]{1,6})?" />
          </Field>
          <OverridesField value="" />
          <Field label="Your name" hint="Kept in the audit (default admin).">
            <input name="actor" maxLength={200} />
          </Field>
          <ErrorNote error={create.error} />
          <button type="submit" disabled={create.busy}>
            Create plan
          </button>
        </form>
      </Section>
    </>
  );
}
