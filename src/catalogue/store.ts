import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { parseCatalogue } from './load.ts';
import { providerStates, type ProviderState } from './provider-states.ts';
import { syncPriceVersions, type PriceVersion } from './price-versions.ts';
import { buildNameIndex, type NamedModel } from './names.ts';
import type { Catalogue, ModelEntry, ProviderEntry, RegistryOptions, ResolvedProvider, RouteEntry } from './types.ts';

export interface ResolvedRoute {
  provider: ResolvedProvider;
  upstreamModel: string;
  priority: number;
}

export interface ResolvedModel extends Omit<ModelEntry, 'routes'> {
  public: boolean;
  priceVersion: PriceVersion;
  /** Routes whose provider is enabled, by priority (lowest first). Empty: nothing can serve it. */
  routes: ResolvedRoute[];
  /** Every route the file gives it, enabled or not (the operators' view of the catalogue). */
  declaredRoutes: RouteEntry[];
}

export interface LoadedCatalogue {
  serviceName: string;
  currency: string;
  loadedAt: Date;
  contentHash: string;
  providers: ReadonlyMap<string, ResolvedProvider>;
  models: ReadonlyMap<string, ResolvedModel>;
  /** The model by public id, whether or not any of its providers is enabled. */
  model(id: string): ResolvedModel | undefined;
  /** The model a name (its id, one of its aliases, or a name one of its patterns matches) stands for. */
  named(name: string): ResolvedModel | undefined;
  /** The same, with how the name reached it (names.ts: id, alias or pattern, in that precedence). */
  resolveName(name: string): NamedModel | undefined;
  /** Aliases the operator lists in /v1/models, with their model. */
  listedAliases: ReadonlyArray<{ alias: string; model: ResolvedModel }>;
  /** Every alias and the model that answers it now. */
  aliases: ReadonlyMap<string, ResolvedModel>;
  /** Every pattern that takes names now, and its model. */
  patterns: ReadonlyMap<string, ResolvedModel>;
  /** Every provider of the file and whether it is callable now (never its credential or host). */
  providerStates: readonly ProviderState[];
}

export type ReloadSuccess = {
  ok: true;
  status: 'reloaded' | 'unchanged';
  loadedAt: Date;
  models: number;
  priceVersionsCreated: Array<{ model: string; price_version: number }>;
};
export type ReloadResult = ReloadSuccess | { ok: false; errors: string[] };

/** Told after each reload whose file content changed (not after the first load). */
export type ReloadListener = (catalogue: LoadedCatalogue, result: ReloadSuccess) => void;

export interface CatalogueStore {
  current(): LoadedCatalogue;
  reload(): Promise<ReloadResult>;
  /** Reload whenever the file changes (polling, which survives editors that replace the file). */
  watch(intervalMs?: number): void;
  close(): void;
  /** Returns a function that removes the listener. */
  onReload(listener: ReloadListener): () => void;
}

export interface CatalogueStoreDeps {
  path: string;
  /**
   * Which providers are enabled (src/providers/registry.ts `resolveProviders`), given by the
   * composition root so the catalogue does not load provider code.
   */
  resolveProviders(entries: readonly ProviderEntry[], options: RegistryOptions): ReadonlyMap<string, ResolvedProvider>;
  db: Knex;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  sandbox: boolean;
  sandboxUrls: ReadonlyMap<string, string>;
  sandboxCredentials?: RegistryOptions['sandboxCredentials'];
  egressProxy?: RegistryOptions['egressProxy'];
  onReload?: ReloadListener;
}

export class CatalogueLoadError extends Error {
  constructor(readonly errors: string[]) {
    super(`invalid catalogue:\n  ${errors.join('\n  ')}`);
  }
}

/** Reads only the providers, before the store exists (the sandbox simulators start first). */
export function readCatalogueProviders(path: string): ProviderEntry[] {
  const parsed = parseCatalogue(fs.readFileSync(path, 'utf8'), path);
  if (!parsed.ok) throw new CatalogueLoadError(parsed.errors);
  return parsed.catalogue.providers;
}

function resolve(catalogue: Catalogue, versions: Map<string, PriceVersion>, contentHash: string, deps: CatalogueStoreDeps): LoadedCatalogue {
  const providers = deps.resolveProviders(catalogue.providers, deps);
  const models = new Map<string, ResolvedModel>();
  for (const model of catalogue.models) {
    const routes = model.routes
      .flatMap((route) => {
        const provider = providers.get(route.provider);
        const upstreamModel = route.upstream_model ?? model.id.slice(model.id.indexOf('/') + 1);
        return provider ? [{ provider, upstreamModel, priority: route.priority ?? 1 }] : [];
      })
      .sort((a, b) => a.priority - b.priority);
    models.set(model.id, { ...model, public: model.public ?? true, priceVersion: versions.get(model.id)!, routes, declaredRoutes: model.routes });
  }
  const names = buildNameIndex(models);
  return {
    serviceName: catalogue.service_name,
    currency: catalogue.currency,
    loadedAt: new Date(),
    contentHash,
    providers,
    models,
    model: (id) => models.get(id),
    named: (name) => names.resolve(name)?.model,
    resolveName: (name) => names.resolve(name),
    listedAliases: names.listedAliases,
    aliases: names.aliases,
    patterns: names.patterns,
    providerStates: providerStates(catalogue.providers, providers, deps),
  };
}

/** Loads the catalogue (failing hard when the first load is bad) and keeps it fresh. */
export async function createCatalogueStore(deps: CatalogueStoreDeps): Promise<CatalogueStore> {
  let loaded: LoadedCatalogue | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const listeners = new Set<ReloadListener>(deps.onReload ? [deps.onReload] : []);

  async function load(): Promise<ReloadResult> {
    const text = await fs.promises.readFile(deps.path, 'utf8').catch((e: Error) => e);
    if (text instanceof Error) return { ok: false, errors: [`${deps.path}: cannot read: ${text.message}`] };
    const parsed = parseCatalogue(text, deps.path);
    if (!parsed.ok) return parsed;
    const contentHash = createHash('sha256').update(text).digest('hex');
    const unchanged = loaded?.contentHash === contentHash;
    const { versions, created } = await syncPriceVersions(deps.db, parsed.catalogue);
    // Rebuilt even when the file is unchanged: credentials in the environment may have changed.
    const next = resolve(parsed.catalogue, versions, contentHash, deps);
    const isFirst = loaded === undefined;
    loaded = next;
    const result: ReloadSuccess = {
      ok: true,
      status: unchanged ? 'unchanged' : 'reloaded',
      loadedAt: next.loadedAt,
      models: next.models.size,
      priceVersionsCreated: created,
    };
    if (!isFirst && !unchanged) notify(next, result);
    return result;
  }

  function notify(catalogue: LoadedCatalogue, result: ReloadSuccess): void {
    for (const listener of listeners) {
      // A listener's bug must not turn a good reload into a failed one.
      try {
        listener(catalogue, result);
      } catch (error) {
        deps.logger.error({ err: error }, 'catalogue reload listener failed');
      }
    }
  }

  // Reloads run one at a time, in order.
  const reload = (): Promise<ReloadResult> => {
    const next = queue.then(load, load);
    queue = next.catch(() => undefined);
    return next;
  };

  const first = await reload();
  if (!first.ok) throw new CatalogueLoadError(first.errors);
  // Provider ids only, so an operator sees which credentials were picked up without seeing them.
  const enabledProviders = [...loaded!.providers.keys()];
  deps.logger.info(
    { path: deps.path, models: first.models, providers_enabled: enabledProviders, price_versions_created: first.priceVersionsCreated },
    'catalogue loaded',
  );

  async function reloadAndLog(): Promise<void> {
    try {
      const result = await reload();
      if (!result.ok) deps.logger.warn({ path: deps.path, errors: result.errors }, 'catalogue change rejected; keeping the last good catalogue');
      else if (result.status === 'reloaded')
        deps.logger.info({ path: deps.path, models: result.models, price_versions_created: result.priceVersionsCreated }, 'catalogue reloaded');
    } catch (error) {
      deps.logger.error({ err: error, path: deps.path }, 'catalogue reload failed; keeping the last good catalogue');
    }
  }

  let watcher: fs.FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  return {
    current: () => loaded!,
    reload,
    watch(intervalMs = 500) {
      if (watcher) return;
      // inotify on the directory catches same-size edits within one mtime tick and editors that
      // replace the file; polling covers filesystems without it. The content hash filters repeats.
      const onChange = () => {
        clearTimeout(debounce);
        debounce = setTimeout(() => void reloadAndLog(), 50);
      };
      const name = path.basename(deps.path);
      try {
        watcher = fs.watch(path.dirname(deps.path), (_event, file) => (!file || file === name) && onChange());
      } catch {
        watcher = { close: () => undefined } as fs.FSWatcher;
      }
      fs.watchFile(deps.path, { interval: intervalMs }, onChange);
    },
    onReload(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    close() {
      // A pending debounced reload would otherwise run after the caller closed the database.
      clearTimeout(debounce);
      if (!watcher) return;
      watcher.close();
      fs.unwatchFile(deps.path);
      watcher = undefined;
    },
  };
}
