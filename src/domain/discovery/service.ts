import type { Caller } from '../../customers/service.ts';
import type { NamedModel } from '../../catalogue/names.ts';
import type { CatalogueStore, ResolvedModel } from '../../catalogue/store.ts';
import { catalogueOverview, type CatalogueOverview } from './overview.ts';

export interface DiscoveryService {
  /** Models the caller may see: every public servable model anonymously, the key's reach with a key. */
  visibleModels(caller: Caller | null): ResolvedModel[];
  /** Aliases the operator lists in /v1/models, of models the caller may see. */
  listedAliases(caller: Caller | null): Array<{ alias: string; model: ResolvedModel }>;
  /**
   * The model a name stands for (its public id or an alias) if the caller may see it; undefined
   * hides existence from those who may not.
   */
  findModel(caller: Caller | null, modelId: string): ResolvedModel | undefined;
  /** Like findModel, with how the name reached the model (its id, an alias, a pattern: src/catalogue/names.ts). */
  resolveModel(caller: Caller | null, name: string): NamedModel | undefined;
  /** Like findModel, but also a model no enabled provider serves right now (its `routes` is empty). */
  findCatalogued(caller: Caller | null, modelId: string): ResolvedModel | undefined;
  /** The retirement of the model a name stands for, if the caller may reach it and it is retired. */
  retirement(caller: Caller | null, modelId: string): Retirement | undefined;
  serviceName(): string;
  currency(): string;
  /** Every provider, model and alias of the catalogue, and why each model can or cannot be reached (operators). */
  overview(): CatalogueOverview;
}

export interface Retirement {
  model: string;
  date: string;
  replacement?: string;
}

export function canSee(caller: Caller | null, model: ResolvedModel): boolean {
  if (model.routes.length === 0) return false; // no enabled provider serves it
  if (model.retired) return false; // its tasks still finish; nothing new starts
  return mayReach(caller, model);
}

/** The key's allow-list, or the model's public flag for keys without one. */
function mayReach(caller: Caller | null, model: ResolvedModel): boolean {
  if (!caller?.allowedModels) return model.public !== false;
  return caller.allowedModels.includes(model.id);
}

export function createDiscoveryService(deps: { catalogue: CatalogueStore }): DiscoveryService {
  return {
    visibleModels(caller) {
      return [...deps.catalogue.current().models.values()].filter((model) => canSee(caller, model));
    },
    listedAliases(caller) {
      return deps.catalogue.current().listedAliases.filter(({ model }) => canSee(caller, model));
    },
    findModel(caller, modelId) {
      const model = deps.catalogue.current().named(modelId);
      return model && canSee(caller, model) ? model : undefined;
    },
    resolveModel(caller, name) {
      const named = deps.catalogue.current().resolveName(name);
      return named && canSee(caller, named.model) ? named : undefined;
    },
    findCatalogued(caller, modelId) {
      const model = deps.catalogue.current().named(modelId);
      return model && mayReach(caller, model) && !model.retired ? model : undefined;
    },
    retirement(caller, modelId) {
      const model = deps.catalogue.current().named(modelId);
      return model?.retired && mayReach(caller, model) ? { model: model.id, ...model.retired } : undefined;
    },
    serviceName: () => deps.catalogue.current().serviceName,
    currency: () => deps.catalogue.current().currency,
    overview: () => catalogueOverview(deps.catalogue.current()),
  };
}
