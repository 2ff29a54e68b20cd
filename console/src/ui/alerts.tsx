// Low-balance alert and webhook settings (issue 28), for a customer (`/v1/alerts`) and for an
// operator on a customer's page (`/admin/v1/customers/{id}/alerts`). A threshold arms the alert:
// the next crossing below it sends one signed `balance.low` webhook; an empty field removes it.
import { useState } from 'preact/hooks';
import type { PublicSchemas } from '../api/session.ts';
import { useAction, useLoad } from './hooks.ts';
import { Badge, ErrorNote, Field, Loading, Money, onSubmit, Section, Time } from './parts.tsx';

export type AlertSettings = PublicSchemas['AlertSettings'];
export type AlertUpdate = PublicSchemas['AlertSettingsUpdate'];

export function AlertsSection({
  load,
  update,
  currency,
}: {
  load: () => Promise<AlertSettings>;
  update: (change: AlertUpdate) => Promise<AlertSettings>;
  currency?: string | undefined;
}) {
  const [changed, setChanged] = useState(0);
  const settings = useLoad(load, [changed]);
  const save = useAction(async (change: AlertUpdate) => {
    const next = await update(change);
    setChanged((n) => n + 1);
    return next;
  });
  const s = save.result ?? settings.data;
  return (
    <Section title="Alerts and webhooks">
      <ErrorNote error={settings.error} />
      {!s ? (
        settings.loading ? (
          <Loading what="the alert settings" />
        ) : null
      ) : (
        <>
          <dl class="figures">
            <dt>Low-balance threshold</dt>
            <dd>{s.low_balance_threshold === null ? 'none' : <Money amount={s.low_balance_threshold} currency={currency} />}</dd>
            <dt>Alert</dt>
            <dd>
              {s.low_balance_threshold === null ? (
                <span class="muted">no threshold</span>
              ) : s.armed ? (
                <>
                  <Badge value="armed" /> the next fall below the threshold sends one webhook
                </>
              ) : (
                <>
                  <Badge value="sent" /> the balance is below the threshold; re-armed once it is back at or above it
                </>
              )}
            </dd>
            <dt>Webhook URL</dt>
            <dd>{s.webhook_url ? <code>{s.webhook_url}</code> : 'none: nothing is sent'}</dd>
            <dt>Video events</dt>
            <dd>{s.video_events ? 'announced (video.completed, video.failed, video.cancelled)' : 'not announced'}</dd>
            <dt>Changed</dt>
            <dd>{s.updated_at ? <Time at={s.updated_at} /> : 'never'}</dd>
          </dl>
          {s.webhook_secret ? (
            <details>
              <summary>Signing secret</summary>
              <p class="hint">Webhooks are signed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) with this secret.</p>
              <input aria-label="Webhook signing secret" readOnly value={s.webhook_secret} class="mono" />
            </details>
          ) : null}
          <form
            aria-label="Alert settings"
            key={`${changed}`}
            onSubmit={onSubmit((fields, form) => {
              const video = (form.elements.namedItem('video_events') as HTMLInputElement).checked;
              const rotate = (form.elements.namedItem('rotate_secret') as HTMLInputElement).checked;
              void save.run({
                low_balance_threshold: fields.low_balance_threshold || null,
                webhook_url: fields.webhook_url || null,
                video_events: video,
                ...(rotate ? { rotate_secret: true } : {}),
              });
            })}
          >
            <Field label="Threshold" hint="Empty: no alert. Up to 6 decimals, e.g. 5.00">
              <input name="low_balance_threshold" inputMode="decimal" pattern="[0-9]+(\.[0-9]{1,6})?" defaultValue={s.low_balance_threshold ?? ''} />
            </Field>
            <Field label="Webhook URL" hint="A public http(s) address. Empty: nothing is sent.">
              <input name="webhook_url" type="url" defaultValue={s.webhook_url ?? ''} />
            </Field>
            <label class="choice">
              <input name="video_events" type="checkbox" defaultChecked={s.video_events} /> Announce finished video tasks
            </label>
            <label class="choice">
              <input name="rotate_secret" type="checkbox" /> Mint a new signing secret
            </label>
            <button type="submit" disabled={save.busy}>
              Save alert settings
            </button>
          </form>
          <ErrorNote error={save.error} />
          {save.result ? (
            <p class="ok" role="status">
              Saved.
            </p>
          ) : null}
        </>
      )}
    </Section>
  );
}
