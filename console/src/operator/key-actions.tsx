// What an operator does to one key: change the models it may reach, its limits and expiry, rotate
// it, revoke it.
import { useState } from 'preact/hooks';
import type { AdminSchemas } from '../api/session.ts';
import { adminApi } from '../api/session.ts';
import { isoToLocalInput, localInputToIso } from '../ui/format.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { ErrorNote, Field, Loading, onSubmit } from '../ui/parts.tsx';

type ApiKey = AdminSchemas['ApiKey'];
type LimitsUpdate = AdminSchemas['KeyLimitsUpdate'];

/** The limits a form names; an empty field is no limit. */
export function limitsFrom(fields: Record<string, string>): LimitsUpdate {
  const whole = (value: string | undefined) => (value ? Number(value) : null);
  return {
    requests_per_minute: whole(fields.requests_per_minute),
    max_concurrent: whole(fields.max_concurrent),
    spend_limit: fields.spend_amount ? { amount: fields.spend_amount, period: (fields.spend_period ?? 'month') as 'day' | 'month' | 'total' } : null,
  };
}

export function limitsText(limits: AdminSchemas['KeyLimits']): string {
  const parts = [
    limits.spend_limit ? `spend ${limits.spend_limit.amount} per ${limits.spend_limit.period === 'total' ? 'lifetime' : limits.spend_limit.period}` : null,
    limits.requests_per_minute !== null ? `${limits.requests_per_minute} requests/min` : null,
    limits.max_concurrent !== null ? `${limits.max_concurrent} at once` : null,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'none';
}

export function LimitsFields({ limits }: { limits?: AdminSchemas['KeyLimits'] }) {
  return (
    <fieldset>
      <legend>Limits (empty: none)</legend>
      <Field label="Spend limit" hint="Amount, up to 6 decimals">
        <input name="spend_amount" inputMode="decimal" pattern="[0-9]+(\.[0-9]{1,6})?" defaultValue={limits?.spend_limit?.amount ?? ''} />
      </Field>
      <Field label="Spend period">
        <select name="spend_period" {...(limits?.spend_limit ? { value: limits.spend_limit.period } : {})}>
          <option value="month">per UTC month</option>
          <option value="day">per UTC day</option>
          <option value="total">in total</option>
        </select>
      </Field>
      <Field label="Requests per minute">
        <input name="requests_per_minute" type="number" min="1" step="1" defaultValue={limits?.requests_per_minute?.toString() ?? ''} />
      </Field>
      <Field label="Requests at once">
        <input name="max_concurrent" type="number" min="1" step="1" defaultValue={limits?.max_concurrent?.toString() ?? ''} />
      </Field>
    </fieldset>
  );
}

/** The models a form's ModelsField allows: null for every model the customer may use. */
export function modelsFrom(form: HTMLFormElement): string[] | null {
  const data = new FormData(form);
  return data.get('reach') === 'only' ? data.getAll('model').map(String) : null;
}

/**
 * Which models a key may reach: every model a customer may use (listed ones), or only those
 * ticked, unlisted ones included (the catalogue's models, retired ones left out).
 */
export function ModelsField({ allowed }: { allowed?: string[] | null }) {
  const [only, setOnly] = useState(Boolean(allowed));
  const catalogue = useLoad(() => adminApi.get('/admin/v1/catalogue', {}), []);
  const models = (catalogue.data?.models ?? []).filter((m) => m.state !== 'retired' || allowed?.includes(m.id));
  return (
    <fieldset>
      <legend>Models</legend>
      <label class="choice">
        <input type="radio" name="reach" value="all" checked={!only} onChange={() => setOnly(false)} /> every listed model
      </label>
      <label class="choice">
        <input type="radio" name="reach" value="only" checked={only} onChange={() => setOnly(true)} /> only these
      </label>
      {!only ? null : catalogue.loading && !catalogue.data ? (
        <Loading what="models" />
      ) : (
        <div class="choices" role="group" aria-label="Models the key may reach">
          <ErrorNote error={catalogue.error} />
          {models.map((m) => (
            <label class="choice" key={m.id}>
              <input type="checkbox" name="model" value={m.id} defaultChecked={allowed?.includes(m.id) ?? false} /> {m.id}
              {m.public ? '' : ' (unlisted)'}
              {m.state === 'reachable' ? '' : ` (${m.state})`}
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}

export function KeyActions({ apiKey, onChanged }: { apiKey: ApiKey; onChanged: () => void }) {
  const path = { key_id: apiKey.id };
  const update = useAction((fields: Record<string, string>, form: HTMLFormElement) => {
    const expires = fields.expires_at ? localInputToIso(fields.expires_at) : null;
    return adminApi.patch('/admin/v1/api-keys/{key_id}', {
      path,
      body: { allowed_models: modelsFrom(form), limits: limitsFrom(fields), expires_at: expires ?? null },
    });
  });
  const rotate = useAction((grace: number) => adminApi.post('/admin/v1/api-keys/{key_id}/rotate', { path, body: { grace_seconds: grace } }));
  const revoke = useAction(() => adminApi.delete('/admin/v1/api-keys/{key_id}', { path }));
  return (
    <div class="key-actions">
      <details>
        <summary>Models, limits and expiry</summary>
        <form
          aria-label={`Limits of ${apiKey.name}`}
          onSubmit={onSubmit(async (fields, form) => {
            if (await update.run(fields, form)) onChanged();
          })}
        >
          <ModelsField allowed={apiKey.allowed_models} />
          <Field label="Expires" hint="In your time zone; empty: never.">
            <input name="expires_at" type="datetime-local" defaultValue={isoToLocalInput(apiKey.expires_at)} />
          </Field>
          <LimitsFields limits={apiKey.limits} />
          <ErrorNote error={update.error} />
          <button type="submit" disabled={update.busy}>
            Save limits
          </button>
        </form>
      </details>
      <details>
        <summary>Rotate</summary>
        <form
          aria-label={`Rotate ${apiKey.name}`}
          class="inline"
          onSubmit={onSubmit(async ({ grace }) => {
            if (await rotate.run(Number(grace || 0))) onChanged();
          })}
        >
          <Field label="Grace seconds" hint="How long the old secret keeps working.">
            <input name="grace" type="number" min="0" step="1" defaultValue="0" />
          </Field>
          <button type="submit" disabled={rotate.busy}>
            Rotate key
          </button>
        </form>
        <ErrorNote error={rotate.error} />
        {rotate.result ? (
          <div class="secret" role="status">
            <p>
              <strong>New secret, shown once:</strong>
            </p>
            <input readOnly aria-label="New secret" class="mono" value={rotate.result.key} />
          </div>
        ) : null}
      </details>
      <button
        type="button"
        class="danger"
        disabled={revoke.busy}
        onClick={async () => {
          if (confirm(`Revoke ${apiKey.name}? Calls with it stop at once.`) && (await revoke.run())) onChanged();
        }}
      >
        Revoke
      </button>
      <ErrorNote error={revoke.error} />
    </div>
  );
}
