// The catalogue as an operator needs to see it (GET /admin/v1/catalogue): every provider of the
// file and why it is or is not callable, every model with its routes and whether it can be
// reached now (and why not), every alias and the model answering it. Customers' listings show only
// what they can reach; this shows the rest and says why. No credential or host appears here.
import type { LoadedCatalogue, ResolvedModel } from '../../catalogue/store.ts';
import type { ProviderState } from '../../catalogue/provider-states.ts';

export type ModelState = 'reachable' | 'unreachable' | 'retired';

export interface RouteOverview {
  provider: string;
  upstreamModel: string;
  priority: number;
  providerState: ProviderState['state'];
}

export interface ModelOverview {
  model: ResolvedModel;
  routes: RouteOverview[];
  state: ModelState;
  /** Why it is not reachable (null when it is). */
  reason: string | null;
}

export interface CatalogueOverview {
  serviceName: string;
  currency: string;
  loadedAt: Date;
  providers: readonly ProviderState[];
  models: ModelOverview[];
  aliases: Array<{ alias: string; model: string; listed: boolean }>;
  /** Every pattern that takes names now, and its model. */
  patterns: Array<{ pattern: string; model: string }>;
}

function why(provider: ProviderState | undefined): string {
  switch (provider?.state) {
    case 'credential_missing':
      return `${provider.credentialEnv ?? 'its credential variable'} is not set`;
    case 'credential_invalid':
      return `${provider.credentialEnv} is set but refused (the log says why)`;
    case 'sandbox_off':
      return 'sandbox providers are off (SANDBOX=false)';
    case 'no_simulator':
      return 'no simulator serves its protocol';
    default:
      return 'not in the catalogue';
  }
}

function modelOverview(model: ResolvedModel, providers: ReadonlyMap<string, ProviderState>): ModelOverview {
  const routes = [...model.declaredRoutes]
    .map((route) => ({
      provider: route.provider,
      upstreamModel: route.upstream_model ?? model.id.slice(model.id.indexOf('/') + 1),
      priority: route.priority ?? 1,
      providerState: providers.get(route.provider)?.state ?? ('credential_missing' as const),
    }))
    .sort((a, b) => a.priority - b.priority);
  if (model.retired)
    return {
      model,
      routes,
      state: 'retired',
      reason: `Retired since ${model.retired.date}${model.retired.replacement ? `; use ${model.retired.replacement}` : ''}.`,
    };
  if (routes.some((r) => r.providerState === 'enabled')) return { model, routes, state: 'reachable', reason: null };
  const reasons = routes.map((r) => `${r.provider}: ${why(providers.get(r.provider))}`);
  return { model, routes, state: 'unreachable', reason: `No provider of its routes can be called (${reasons.join('; ')}).` };
}

export function catalogueOverview(catalogue: LoadedCatalogue): CatalogueOverview {
  const providers = new Map(catalogue.providerStates.map((p) => [p.id, p]));
  const listed = new Set(catalogue.listedAliases.map(({ alias }) => alias));
  return {
    serviceName: catalogue.serviceName,
    currency: catalogue.currency,
    loadedAt: catalogue.loadedAt,
    providers: catalogue.providerStates,
    models: [...catalogue.models.values()].map((model) => modelOverview(model, providers)),
    aliases: [...catalogue.aliases]
      .map(([alias, model]) => ({ alias, model: model.id, listed: listed.has(alias) }))
      .sort((a, b) => a.alias.localeCompare(b.alias)),
    patterns: [...catalogue.patterns].map(([pattern, model]) => ({ pattern, model: model.id })).sort((a, b) => a.pattern.localeCompare(b.pattern)),
  };
}
