// The catalogue as loaded (GET /admin/v1/catalogue): every provider and whether it can be called
// (never its credential or host), every model with its routes and whether it can be reached now
// (and why not), retired ones, and aliases; the prices of those a customer can reach (the public
// price list); and a reload of the file.
import { adminApi, anonymousApi, type AdminSchemas } from '../api/session.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { Badge, ErrorNote, Loading, Section, Table, Time } from '../ui/parts.tsx';
import { PriceText, quotaText } from '../ui/prices.tsx';

type Overview = AdminSchemas['CatalogueOverview'];

const PROVIDER_STATES: Record<string, string> = {
  enabled: 'callable',
  credential_missing: 'its credential variable is not set',
  credential_invalid: 'its credential is set but refused (see the log)',
  sandbox_off: 'sandbox providers are off (SANDBOX=false)',
  no_simulator: 'no simulator serves its protocol',
};

export function Catalogue() {
  const overview = useLoad(() => adminApi.get('/admin/v1/catalogue', {}), []);
  const prices = useLoad(() => anonymousApi.get('/v1/models/pricing', {}), []);
  const reload = useAction(() => adminApi.post('/admin/v1/catalogue/reload', {}));
  const o = overview.data;
  return (
    <>
      <h1>Catalogue</h1>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          disabled={reload.busy}
          onClick={async () => {
            if (await reload.run()) {
              overview.reload();
              prices.reload();
            }
          }}
        >
          Reload the catalogue file
        </button>
        {reload.result ? (
          <span role="status">
            {reload.result.status === 'reloaded' ? 'Reloaded' : 'Unchanged'}: {reload.result.models} models, loaded <Time at={reload.result.loaded_at} />
            {reload.result.price_versions_created.length ? `, new prices for ${reload.result.price_versions_created.map((p) => p.model).join(', ')}` : ''}.
          </span>
        ) : null}
      </div>
      <ErrorNote error={reload.error ?? overview.error ?? prices.error} />
      {!o ? (
        overview.loading ? (
          <Loading what="the catalogue" />
        ) : null
      ) : (
        <>
          <p class="meta">
            {o.models.filter((m) => m.state === 'reachable').length} of {o.models.length} models can be reached now · loaded <Time at={o.loaded_at} />
          </p>
          <Providers overview={o} />
          <Models overview={o} />
          <Aliases overview={o} />
        </>
      )}
      <Section title="Prices of the models customers can reach">
        {!prices.data ? (
          prices.loading ? (
            <Loading what="prices" />
          ) : null
        ) : (
          <Table
            caption="Models and prices"
            rows={prices.data.data}
            rowKey={(m) => m.model}
            columns={[
              { label: 'Model', cell: (m) => <code>{m.model}</code> },
              { label: 'Group', cell: (m) => m.group },
              { label: 'Price', cell: (m) => <PriceText price={m.price} currency={prices.data!.currency} /> },
              { label: 'Version', class: 'num', cell: (m) => String(m.price_version) },
              { label: 'Context', class: 'num', cell: (m) => (m.context_window === null ? '—' : m.context_window.toLocaleString()) },
              { label: 'Free quota', cell: (m) => quotaText(m.free_quota) },
            ]}
          />
        )}
      </Section>
    </>
  );
}

function Providers({ overview }: { overview: Overview }) {
  return (
    <Section title="Providers">
      <Table
        caption="Providers"
        rows={overview.providers}
        rowKey={(p) => p.id}
        columns={[
          { label: 'Provider', cell: (p) => <code>{p.id}</code> },
          { label: 'Protocol', cell: (p) => p.protocol },
          { label: 'Kind', cell: (p) => (p.sandbox ? 'sandbox (simulated)' : 'real') },
          {
            label: 'Credential',
            cell: (p) =>
              p.credential_env === null ? (
                <span class="muted">none needed</span>
              ) : (
                <>
                  <code>{p.credential_env}</code> {p.credential_set ? 'set' : 'not set'}
                </>
              ),
          },
          {
            label: 'State',
            cell: (p) => (
              <>
                <Badge value={p.state} /> <span class="small">{PROVIDER_STATES[p.state] ?? ''}</span>
              </>
            ),
          },
        ]}
      />
    </Section>
  );
}

function Models({ overview }: { overview: Overview }) {
  return (
    <Section title="Models">
      <Table
        caption="Models"
        rows={overview.models}
        rowKey={(m) => m.id}
        columns={[
          {
            label: 'Model',
            cell: (m) => (
              <>
                <code>{m.id}</code>
                {m.public ? null : <span class="small"> (unlisted: allow-listed keys only)</span>}
              </>
            ),
          },
          { label: 'Group', cell: (m) => m.group },
          {
            label: 'State',
            cell: (m) => (
              <>
                <Badge value={m.state} />
                {m.reason ? <span class="small"> {m.reason}</span> : null}
              </>
            ),
          },
          {
            label: 'Routes',
            cell: (m) => (
              <ul class="plain">
                {m.routes.map((r) => (
                  <li key={`${r.provider}:${r.priority}`}>
                    {r.priority}. <code>{r.provider}</code> as <code>{r.upstream_model}</code> <Badge value={r.provider_state} />
                  </li>
                ))}
              </ul>
            ),
          },
          { label: 'Aliases', cell: (m) => (m.aliases.length ? m.aliases.join(', ') : <span class="muted">—</span>) },
          { label: 'Patterns', cell: (m) => (m.patterns.length ? m.patterns.join(', ') : <span class="muted">—</span>) },
          { label: 'Price version', class: 'num', cell: (m) => String(m.price_version) },
        ]}
      />
    </Section>
  );
}

function Aliases({ overview }: { overview: Overview }) {
  return (
    <Section title="Aliases and patterns">
      {overview.aliases.length === 0 ? (
        <p class="muted">No aliases.</p>
      ) : (
        <Table
          caption="Aliases"
          rows={overview.aliases}
          rowKey={(a) => a.alias}
          columns={[
            { label: 'Alias', cell: (a) => <code>{a.alias}</code> },
            { label: 'Answered by', cell: (a) => <code>{a.model}</code> },
            { label: 'Listed in /v1/models', cell: (a) => (a.listed ? 'yes' : 'no') },
          ]}
        />
      )}
      {overview.patterns.length === 0 ? null : (
        <Table
          caption="Patterns: a name that is no id or alias goes to the most specific pattern it matches"
          rows={overview.patterns}
          rowKey={(p) => p.pattern}
          columns={[
            { label: 'Pattern', cell: (p) => <code>{p.pattern}</code> },
            { label: 'Answered by', cell: (p) => <code>{p.model}</code> },
          ]}
        />
      )}
    </Section>
  );
}
