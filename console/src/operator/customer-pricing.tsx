// A customer's pricing on its page: its price plan (or none: list prices) and its own per-model
// overrides, which come before any rule of the plan; what it pays beside route costs; the audit.
import { useState } from 'preact/hooks';
import { adminApi } from '../api/session.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { ErrorNote, Field, Loading, onSubmit, Section } from '../ui/parts.tsx';
import { href } from '../ui/router.ts';
import { ModelPrices } from './model-prices.tsx';
import { OverridesField, overridesText, parseOverrides } from './plan-form.tsx';
import { PricingAudit } from './pricing-audit.tsx';

export function CustomerPricing({ customerId }: { customerId: string }) {
  const [changed, setChanged] = useState(0);
  const pricing = useLoad(() => adminApi.get('/admin/v1/customers/{customer_id}/pricing', { path: { customer_id: customerId } }), [customerId, changed]);
  const plans = useLoad(() => adminApi.get('/admin/v1/plans', {}), []);
  const save = useAction(async (fields: Record<string, string>) =>
    adminApi.patch('/admin/v1/customers/{customer_id}/pricing', {
      path: { customer_id: customerId },
      body: { plan_id: fields.plan_id || null, overrides: parseOverrides(fields.overrides ?? ''), ...(fields.actor ? { actor: fields.actor } : {}) },
    }),
  );
  const p = pricing.data;
  return (
    <>
      <Section title="Pricing">
        <ErrorNote error={pricing.error ?? plans.error} />
        {!p || !plans.data ? (
          <Loading what="the pricing" />
        ) : (
          <form
            aria-label="Pricing"
            key={changed}
            onSubmit={onSubmit(async (fields) => {
              if (await save.run(fields)) setChanged((n) => n + 1);
            })}
          >
            <p class="meta">
              {p.plan ? (
                <>
                  On <a href={href('operator', 'plans', p.plan.id)}>{p.plan.name}</a> (version {p.plan.version})
                </>
              ) : (
                'On list prices'
              )}
              {p.overrides.length ? `, with ${p.overrides.length} override(s) of its own.` : '.'}
            </p>
            <Field label="Price plan">
              <select name="plan_id" defaultValue={p.plan?.id ?? ''}>
                <option value="">None: list prices</option>
                {plans.data.data.map((plan) => (
                  <option key={plan.id} value={plan.id}>
                    {plan.name}
                  </option>
                ))}
              </select>
            </Field>
            <OverridesField value={overridesText(p.overrides)} patterns={false} />
            <Field label="Your name" hint="Kept in the audit (default admin).">
              <input name="actor" maxLength={200} />
            </Field>
            <ErrorNote error={save.error} />
            {save.result ? (
              <p class="ok" role="status">
                Saved: the customer pays these prices from its next request.
              </p>
            ) : null}
            <button type="submit" disabled={save.busy}>
              Save pricing
            </button>
          </form>
        )}
      </Section>
      <ModelPrices title="What it pays" whose={{ customer_id: customerId }} refreshKey={changed} />
      <PricingAudit subjectId={customerId} refreshKey={changed} />
    </>
  );
}
