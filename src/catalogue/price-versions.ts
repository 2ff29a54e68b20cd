import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { formatMicros, parseMicros } from '../shared/money.ts';
import type { Catalogue, ModelEntry } from './types.ts';

export interface PriceVersion {
  id: bigint;
  version: number;
}

export interface PriceVersionSync {
  versions: Map<string, PriceVersion>;
  created: Array<{ model: string; price_version: number }>;
}

/**
 * The price with every decimal normalised and keys sorted, so "3.0" and "3.000000" are one price.
 * Lists (long-context tiers) stay lists, in their order; numbers (thresholds) stay numbers. This
 * is the JSON a price version freezes, read back to price work accepted under it.
 */
export function canonicalPrice(price: ModelEntry['price']): Record<string, unknown> {
  const normalise = (value: unknown): unknown => {
    if (typeof value === 'string') return formatMicros(parseMicros(value));
    if (Array.isArray(value)) return value.map(normalise);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((k) => [k, normalise((value as Record<string, unknown>)[k])]),
      );
    }
    return value;
  };
  return normalise(price) as Record<string, unknown>;
}

const hashOf = (canonical: Record<string, unknown>): string => createHash('sha256').update(JSON.stringify(canonical)).digest('hex');

// Any fixed 64-bit number works; it only has to be the same in every gateway process.
export const PRICE_VERSION_LOCK = 7_302_114_557;

/**
 * Appends a version for every model whose price differs from its latest version. One short
 * transaction under an advisory lock, so replicas loading the same file at once agree on one row.
 */
export async function syncPriceVersions(db: Knex, catalogue: Catalogue): Promise<PriceVersionSync> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [PRICE_VERSION_LOCK]);
    // The catalogue's own versions (`list`); plans and customers' overrides have scopes of their own.
    const latest = await trx('price_versions')
      .where({ scope: 'list' })
      .whereIn(
        'model_id',
        catalogue.models.map((m) => m.id),
      )
      .distinctOn('model_id')
      .orderBy([{ column: 'model_id' }, { column: 'version', order: 'desc' }])
      .select<Array<{ id: bigint; model_id: string; version: number; price_hash: string }>>('id', 'model_id', 'version', 'price_hash');
    const byModel = new Map(latest.map((row) => [row.model_id, row]));
    const versions = new Map<string, PriceVersion>();
    const created: PriceVersionSync['created'] = [];
    for (const model of catalogue.models) {
      const canonical = canonicalPrice(model.price);
      const hash = hashOf(canonical);
      const current = byModel.get(model.id);
      if (current && current.price_hash === hash) {
        versions.set(model.id, { id: current.id, version: current.version });
        continue;
      }
      const version = (current?.version ?? 0) + 1;
      const [row] = await trx('price_versions')
        .insert({ model_id: model.id, version, price: JSON.stringify(canonical), price_hash: hash })
        .returning<Array<{ id: bigint }>>('id');
      versions.set(model.id, { id: row!.id, version });
      created.push({ model: model.id, price_version: version });
    }
    return { versions, created };
  });
}
