import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import type { Catalogue, ModelEntry, ProviderEntry, RouteEntry } from '../../src/catalogue/types.ts';
import { SAMPLE_CATALOGUE } from './gateway.ts';

/** Fields to set on an entry, or a function that edits it in place. */
export type EntryEdit<T> = Partial<T> | ((entry: T) => void);

/**
 * What a test changes in a catalogue. Everything named must be there: an edit of a provider or
 * model the catalogue lacks, a free quota it does not have, an added id it already has, throws,
 * so a test never runs on an unchanged catalogue believing it changed it.
 */
export interface CatalogueChanges {
  /** Providers listed before the catalogue's own (a test's own upstreams, say). */
  providers?: ProviderEntry[];
  /** Models listed after the catalogue's own. */
  models?: ModelEntry[];
  /** Edits of the catalogue's providers, by id. */
  provider?: Record<string, EntryEdit<ProviderEntry>>;
  /** Edits of the catalogue's models, by id. */
  model?: Record<string, EntryEdit<ModelEntry>>;
  /** Models whose free quota is left out (exact charges from the first unit). */
  withoutFreeQuota?: string[];
}

/** The route of `model` through `provider`, to edit in a `model` edit; throws when it has none. */
export function routeVia(model: ModelEntry, provider: string): RouteEntry {
  const route = model.routes.find((r) => r.provider === provider);
  if (!route) throw new Error(`catalogue change: ${model.id} has no route via ${provider}`);
  return route;
}

/**
 * A catalogue's YAML text with `changes` applied, parsed and written again (comments and layout
 * are not kept: edit the result with this function again, not by string replacement).
 */
export function changeCatalogue(text: string, changes: CatalogueChanges): string {
  const catalogue = parse(text) as Catalogue;
  const providers = new Map(catalogue.providers.map((p) => [p.id, p]));
  const models = new Map(catalogue.models.map((m) => [m.id, m]));
  for (const [id, edit] of Object.entries(changes.provider ?? {})) apply(providers, 'provider', id, edit);
  for (const [id, edit] of Object.entries(changes.model ?? {})) apply(models, 'model', id, edit);
  for (const id of changes.withoutFreeQuota ?? []) {
    const model = find(models, 'model', id);
    if (!model.free_quota) throw new Error(`catalogue change: model ${id} has no free_quota to leave out`);
    delete model.free_quota;
  }
  for (const added of changes.providers ?? []) refuseTaken(providers, 'provider', added.id);
  for (const added of changes.models ?? []) refuseTaken(models, 'model', added.id);
  catalogue.providers = [...(changes.providers ?? []), ...catalogue.providers];
  catalogue.models = [...catalogue.models, ...(changes.models ?? [])];
  return stringify(catalogue, { lineWidth: 0 });
}

/** catalogue.sample.yaml with `changes`, as text. */
export function sampleCatalogueText(changes: CatalogueChanges = {}): string {
  return changeCatalogue(fs.readFileSync(SAMPLE_CATALOGUE, 'utf8'), changes);
}

/** catalogue.sample.yaml with `changes`, written to catalogue.yaml in a new temporary directory: its path. */
export function sampleCatalogueWith(changes: CatalogueChanges = {}): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-')), 'catalogue.yaml');
  fs.writeFileSync(file, sampleCatalogueText(changes));
  return file;
}

function find<T>(entries: Map<string, T>, kind: string, id: string): T {
  const entry = entries.get(id);
  if (!entry) throw new Error(`catalogue change: no ${kind} ${id} in the catalogue`);
  return entry;
}

function apply<T extends object>(entries: Map<string, T>, kind: string, id: string, edit: EntryEdit<T>): void {
  const entry = find(entries, kind, id);
  if (typeof edit === 'function') edit(entry);
  else Object.assign(entry, edit);
}

function refuseTaken(entries: Map<string, unknown>, kind: string, id: string): void {
  if (entries.has(id)) throw new Error(`catalogue change: the catalogue already has a ${kind} ${id}`);
}
