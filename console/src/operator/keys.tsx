// A customer's API keys: create one (its secret is shown once, here, and never again), and for
// each: limits, expiry, rotation with a grace period, revocation.
import type { AdminSchemas } from '../api/session.ts';
import { adminApi } from '../api/session.ts';
import { localInputToIso } from '../ui/format.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { Badge, Empty, ErrorNote, Field, Loading, Section, Time, onSubmit } from '../ui/parts.tsx';
import { KeyActions, LimitsFields, limitsFrom, limitsText, ModelsField, modelsFrom } from './key-actions.tsx';

type ApiKey = AdminSchemas['ApiKey'];

export function Keys({ customerId }: { customerId: string }) {
  const keys = useLoad(() => adminApi.get('/admin/v1/customers/{customer_id}/api-keys', { path: { customer_id: customerId } }), [customerId]);
  const create = useAction((fields: Record<string, string>, form: HTMLFormElement) => {
    const expires = localInputToIso(fields.expires_at ?? '');
    const models = modelsFrom(form);
    return adminApi.post('/admin/v1/customers/{customer_id}/api-keys', {
      path: { customer_id: customerId },
      body: {
        ...(fields.name ? { name: fields.name } : {}),
        ...(expires ? { expires_at: expires } : {}),
        ...(models ? { allowed_models: models } : {}),
        limits: limitsFrom(fields),
      },
    });
  });
  const secret = create.result;
  return (
    <Section title="API keys">
      {secret ? (
        <div class="secret" role="status">
          <p>
            <strong>Copy the key now:</strong> it is shown only once and cannot be read again.
          </p>
          <label class="field">
            <span class="label">New key {secret.name}</span>
            <input readOnly value={secret.key} class="mono" onFocus={(e) => e.currentTarget.select()} />
          </label>
          <button type="button" class="secondary" onClick={() => void navigator.clipboard?.writeText(secret.key)}>
            Copy
          </button>{' '}
          <button type="button" class="link" onClick={create.reset}>
            I have stored it
          </button>
        </div>
      ) : null}
      <ErrorNote error={keys.error} />
      {keys.loading && !keys.data ? (
        <Loading what="keys" />
      ) : keys.data && keys.data.data.length === 0 ? (
        <Empty>No keys yet.</Empty>
      ) : (
        <ul class="keys">
          {keys.data?.data.map((key) => (
            <KeyItem key={key.id} apiKey={key} onChanged={keys.reload} />
          ))}
        </ul>
      )}
      <details class="create">
        <summary>Create a key</summary>
        <form
          aria-label="Create a key"
          onSubmit={onSubmit(async (fields, form) => {
            if (await create.run(fields, form)) {
              form.reset();
              keys.reload();
            }
          })}
        >
          <Field label="Key name">
            <input name="name" maxLength={200} />
          </Field>
          <Field label="Expires" hint="In your time zone; empty: never.">
            <input name="expires_at" type="datetime-local" />
          </Field>
          <ModelsField />
          <LimitsFields />
          <ErrorNote error={create.error} />
          <button type="submit" disabled={create.busy}>
            Create key
          </button>
        </form>
      </details>
    </Section>
  );
}

function KeyItem({ apiKey, onChanged }: { apiKey: ApiKey; onChanged: () => void }) {
  return (
    <li class="key" aria-label={`Key ${apiKey.name}`}>
      <div class="key-head">
        <strong>{apiKey.name}</strong> <code>{apiKey.redacted_key}</code> <Badge value={apiKey.status} />
      </div>
      <p class="meta">
        <code>{apiKey.id}</code> · created <Time at={apiKey.created_at} /> · expires {apiKey.expires_at ? <Time at={apiKey.expires_at} /> : 'never'}
        {apiKey.previous_key_valid_until ? (
          <span>
            {' '}
            · previous secret valid until <Time at={apiKey.previous_key_valid_until} />
          </span>
        ) : null}
      </p>
      <p class="meta">Models: {apiKey.allowed_models ? apiKey.allowed_models.join(', ') : 'every listed model'}</p>
      <p class="meta">Limits: {limitsText(apiKey.limits)}</p>
      {apiKey.status === 'revoked' ? null : <KeyActions apiKey={apiKey} onChanged={onChanged} />}
    </li>
  );
}
