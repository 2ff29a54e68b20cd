import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import type { Catalogue, ModelEntry, ProviderEntry, ProviderProtocol, RouteEntry, VideoSpec } from '../../src/catalogue/types.ts';
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

/** A provider the test serves itself (a simulator on loopback), reached as a real one is: by URL and credential. */
export function testProvider(
  id: string,
  protocol: ProviderProtocol,
  baseUrl: string,
  credentialEnv: string,
  extra: Partial<ProviderEntry> = {},
): ProviderEntry {
  return { id, protocol, base_url: baseUrl, credential_env: credentialEnv, ...extra };
}

/** A messages model on `provider` at Claude Haiku 4.5's upstream name and prices (1.00 in, 5.00 out). */
export function haikuModel(id: string, provider: string): ModelEntry {
  return {
    id,
    group: 'messages',
    routes: [{ provider, upstream_model: 'claude-haiku-4-5-20251001' }],
    price: { input_per_mtok: '1.00', output_per_mtok: '5.00' },
  };
}

/**
 * The video model most tests add for a provider of their own: Seedance 1.5 Pro upstream, five
 * seconds of text-to-video at 0.10 a 720p second, not cancellable unless `video` says so.
 */
export function seedanceModel(id: string, provider: string, video: Partial<VideoSpec> = {}): ModelEntry {
  return {
    id,
    group: 'video',
    routes: [{ provider, upstream_model: 'doubao-seedance-1-5-pro-251215' }],
    video: { seconds: [5], cancellable: false, inline_base64: false, content_types: ['text'], ...video },
    price: { per_second: { '720p': '0.10' } },
  };
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
