import { aliasName } from '../../catalogue/types.ts';
import type { CatalogueOverview } from '../../domain/discovery/overview.ts';
import type { AdminComponents } from '../../types.ts';

export const catalogueOverviewToWire = (o: CatalogueOverview): AdminComponents['schemas']['CatalogueOverview'] => ({
  object: 'catalogue',
  service_name: o.serviceName,
  currency: o.currency,
  loaded_at: o.loadedAt.toISOString(),
  providers: o.providers.map((p) => ({
    id: p.id,
    protocol: p.protocol,
    sandbox: p.sandbox,
    credential_env: p.credentialEnv,
    credential_set: p.credentialSet,
    state: p.state,
  })),
  models: o.models.map(({ model, routes, state, reason }) => ({
    id: model.id,
    group: model.group,
    display_name: model.display_name ?? null,
    public: model.public,
    state,
    reason,
    retired: model.retired ? { date: model.retired.date, replacement: model.retired.replacement ?? null } : null,
    aliases: (model.aliases ?? []).map(aliasName),
    patterns: model.patterns ?? [],
    routes: routes.map((r) => ({ provider: r.provider, upstream_model: r.upstreamModel, priority: r.priority, provider_state: r.providerState })),
    price_version: model.priceVersion.version,
    context_window: model.context_window ?? null,
  })),
  aliases: o.aliases,
  patterns: o.patterns,
});
