import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { resolveProviders, type ResolvedProvider } from '../providers/registry.ts';
import { parseCatalogue } from './load.ts';
import { syncPriceVersions, type PriceVersion } from './price-versions.ts';
import type { Catalogue, ModelEntry, ProviderEntry } from './types.ts';

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
}

export interface LoadedCatalogue {
  serviceName: string;
  currency: string;
  loadedAt: Date;
  contentHash: string;
  providers: ReadonlyMap<string, ResolvedProvider>;
  models: ReadonlyMap<string, ResolvedModel>;
}

export type ReloadResult =
  | { ok: true; status: 'reloaded' | 'unchanged'; loadedAt: Date; models: number; priceVersionsCreated: Array<{ model: string; price_version: number }> }
  | { ok: false; errors: string[] };

export interface CatalogueStore {
  current(): LoadedCatalogue;
  reload(): Promise<ReloadResult>;
  /** Reload whenever the file changes (polling, which survives editors that replace the file). */
  watch(intervalMs?: number): void;
  close(): void;
}

export interface CatalogueStoreDeps {
  path: string;
  db: Knex;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  sandbox: boolean;
  sandboxUrls: ReadonlyMap<string, string>;
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
  const providers = resolveProviders(catalogue.providers, deps);
  const models = new Map<string, ResolvedModel>();
  for (const model of catalogue.models) {
    const routes = model.routes
      .flatMap((route) => {
        const provider = providers.get(route.provider);
        const upstreamModel = route.upstream_model ?? model.id.slice(model.id.indexOf('/') + 1);
        return provider ? [{ provider, upstreamModel, priority: route.priority ?? 1 }] : [];
      })
      .sort((a, b) => a.priority - b.priority);
    models.set(model.id, { ...model, public: model.public ?? true, priceVersion: versions.get(model.id)!, routes });
  }
  return { serviceName: catalogue.service_name, currency: catalogue.currency, loadedAt: new Date(), contentHash, providers, models };
}

/** Loads the catalogue (failing hard when the first load is bad) and keeps it fresh. */
export async function createCatalogueStore(deps: CatalogueStoreDeps): Promise<CatalogueStore> {
  let loaded: LoadedCatalogue | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  async function load(): Promise<ReloadResult> {
    const text = await fs.promises.readFile(deps.path, 'utf8').catch((e: Error) => e);
    if (text instanceof Error) return { ok: false, errors: [`${deps.path}: cannot read: ${text.message}`] };
    const parsed = parseCatalogue(text, deps.path);
    if (!parsed.ok) return parsed;
    const contentHash = createHash('sha256').update(text).digest('hex');
    const unchanged = loaded?.contentHash === contentHash;
    const { versions, created } = await syncPriceVersions(deps.db, parsed.catalogue);
    // Rebuilt even when the file is unchanged: credentials in the environment may have changed.
    loaded = resolve(parsed.catalogue, versions, contentHash, deps);
    return { ok: true, status: unchanged ? 'unchanged' : 'reloaded', loadedAt: loaded.loadedAt, models: loaded.models.size, priceVersionsCreated: created };
  }

  // Reloads run one at a time, in order.
  const reload = (): Promise<ReloadResult> => {
    const next = queue.then(load, load);
    queue = next.catch(() => undefined);
    return next;
  };

  const first = await reload();
  if (!first.ok) throw new CatalogueLoadError(first.errors);
  deps.logger.info({ path: deps.path, models: first.models, price_versions_created: first.priceVersionsCreated }, 'catalogue loaded');

  async function reloadAndLog(): Promise<void> {
    try {
      const result = await reload();
      if (!result.ok) deps.logger.warn({ path: deps.path, errors: result.errors }, 'catalogue change rejected; keeping the last good catalogue');
      else if (result.status === 'reloaded') deps.logger.info({ path: deps.path, models: result.models, price_versions_created: result.priceVersionsCreated }, 'catalogue reloaded');
    } catch (error) {
      deps.logger.error({ err: error, path: deps.path }, 'catalogue reload failed; keeping the last good catalogue');
    }
  }

  let watcher: fs.FSWatcher | undefined;
  return {
    current: () => loaded!,
    reload,
    watch(intervalMs = 500) {
      if (watcher) return;
      // inotify on the directory catches same-size edits within one mtime tick and editors that
      // replace the file; polling covers filesystems without it. The content hash filters repeats.
      let timer: NodeJS.Timeout | undefined;
      const onChange = () => {
        clearTimeout(timer);
        timer = setTimeout(() => void reloadAndLog(), 50);
      };
      const name = path.basename(deps.path);
      try {
        watcher = fs.watch(path.dirname(deps.path), (_event, file) => (!file || file === name) && onChange());
      } catch {
        watcher = { close: () => undefined } as fs.FSWatcher;
      }
      fs.watchFile(deps.path, { interval: intervalMs }, onChange);
    },
    close() {
      if (!watcher) return;
      watcher.close();
      fs.unwatchFile(deps.path);
      watcher = undefined;
    },
  };
}
