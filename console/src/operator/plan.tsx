// One price plan: change it (a new version, audited), delete it (when no customer is on it), what
// its customers pay for each model beside each route's upstream cost, and its audit.
import { useState } from 'preact/hooks';
import { adminApi } from '../api/session.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { ErrorNote, Field, Loading, onSubmit, Section } from '../ui/parts.tsx';
import { go, href } from '../ui/router.ts';
import { ModelPrices } from './model-prices.tsx';
import { OverridesField, overridesText, parseOverrides } from './plan-form.tsx';
import { PricingAudit } from './pricing-audit.tsx';

export function PlanDetail({ id }: { id: string }) {
  const [changed, setChanged] = useState(0);
  const plan = useLoad(() => adminApi.get('/admin/v1/plans/{plan_id}', { path: { plan_id: id } }), [id, changed]);
  const save = useAction(async (fields: Record<string, string>) =>
    adminApi.patch('/admin/v1/plans/{plan_id}', {
      path: { plan_id: id },
      body: {
        name: fields.name ?? '',
        description: fields.description || null,
        multiplier: fields.multiplier || null,
        overrides: parseOverrides(fields.overrides ?? ''),
        ...(fields.actor ? { actor: fields.actor } : {}),
      },
    }),
  );
  const remove = useAction(() => adminApi.delete('/admin/v1/plans/{plan_id}', { path: { plan_id: id }, query: {} }));
  const p = plan.data;
  return (
    <>
      <p class="crumbs">
        <a href={href('operator', 'plans')}>Price plans</a> /
      </p>
      <ErrorNote error={plan.error} />
      {!p ? (
        plan.loading ? (
          <Loading what="the plan" />
        ) : null
      ) : (
        <>
          <h1>{p.name}</h1>
          <p class="meta">
            <code>{p.id}</code> version {p.version} · {p.customers} customer(s) · {p.multiplier ? `× ${p.multiplier} of list prices` : 'list prices'} for models
            no override names
          </p>
          <Section title="Change the plan">
            <form
              aria-label="Change the plan"
              key={p.version}
              onSubmit={onSubmit(async (fields) => {
                if (await save.run(fields)) setChanged((n) => n + 1);
              })}
            >
              <Field label="Plan name">
                <input name="name" required maxLength={100} defaultValue={p.name} />
              </Field>
              <Field label="Description">
                <input name="description" maxLength={500} defaultValue={p.description ?? ''} />
              </Field>
              <Field label="Multiplier of list prices" hint="Empty: list prices for models no override names.">
                <input name="multiplier" inputMode="decimal" pattern="[0-9]{1,4}(\.[0-9]{1,6})?" defaultValue={p.multiplier ?? ''} />
              </Field>
              <OverridesField value={overridesText(p.overrides)} />
              <Field label="Your name" hint="Kept in the audit (default admin).">
                <input name="actor" maxLength={200} />
              </Field>
              <ErrorNote error={save.error} />
              {save.result ? (
                <p class="ok" role="status">
                  Saved as version {save.result.version}: its customers pay the new prices from their next request.
                </p>
              ) : null}
              <button type="submit" disabled={save.busy}>
                Save the plan
              </button>
            </form>
            <div class="actions">
              <button
                type="button"
                class="danger"
                disabled={remove.busy}
                onClick={async () => {
                  if (confirm(`Delete the plan ${p.name}?`) && (await remove.run())) go('operator', 'plans');
                }}
              >
                Delete the plan
              </button>
              <span class="hint">Only a plan no customer is on.</span>
            </div>
            <ErrorNote error={remove.error} />
          </Section>
          <ModelPrices title="What its customers pay" whose={{ plan_id: id }} refreshKey={p.version} />
          <PricingAudit subjectId={id} refreshKey={p.version} />
        </>
      )}
    </>
  );
}
