// A price a plan or a customer's override resolved, frozen as a price version of its own: the
// first time a (model, scope, price, rule) is used it becomes a `price_versions` row (scope
// `plan:<id>` or `customer:<id>`, the rule in `pricing`), found again by its content after that,
// by every replica. A hold names that row's id, so settle, receipts, reconciliation, exports and
// tasks that run for minutes price the work at what was in force when it was accepted, whatever
// the plan says later. The catalogue's own versions (scope `list`) are src/catalogue/price-versions.ts.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { canonicalPrice, PRICE_VERSION_LOCK, type PriceVersion } from '../../catalogue/price-versions.ts';
import type { Price, PriceRule } from '../../pricing/plans.ts';

/** Frozen versions this process knows, by model, scope and content. */
const KNOWN_MAX = 10_000;

export interface ScopedVersions {
  versionOf(modelId: string, scope: string, price: Price, rule: PriceRule): Promise<PriceVersion>;
}

export function createScopedVersions(db: Knex): ScopedVersions {
  const known = new Map<string, PriceVersion>();
  const pending = new Map<string, Promise<PriceVersion>>();

  return {
    async versionOf(modelId, scope, price, rule) {
      const canonical = { price: canonicalPrice(price), pricing: rule };
      const hash = createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
      const key = `${modelId}\n${scope}\n${hash}`;
      const found = known.get(key);
      if (found) return found;
      let loading = pending.get(key);
      if (!loading) {
        loading = freeze(db, { modelId, scope, hash, ...canonical }).finally(() => pending.delete(key));
        pending.set(key, loading);
      }
      const version = await loading;
      if (known.size >= KNOWN_MAX) known.clear();
      known.set(key, version);
      return version;
    },
  };
}

interface Frozen {
  modelId: string;
  scope: string;
  hash: string;
  price: Record<string, unknown>;
  pricing: PriceRule;
}

async function freeze(db: Knex, frozen: Frozen): Promise<PriceVersion> {
  const find = (q: Knex) =>
    q('price_versions')
      .where({ model_id: frozen.modelId, scope: frozen.scope, price_hash: frozen.hash })
      .first<{ id: bigint; version: number } | undefined>('id', 'version');
  const existing = await find(db);
  if (existing) return { id: BigInt(existing.id), version: existing.version };
  // The catalogue's lock: replicas freezing the same price at once agree on one row.
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [PRICE_VERSION_LOCK]);
    const again = await find(trx);
    if (again) return { id: BigInt(again.id), version: again.version };
    const [latest] = await trx('price_versions')
      .where({ model_id: frozen.modelId, scope: frozen.scope })
      .max<Array<{ version: number | null }>>('version as version');
    const version = (latest?.version ?? 0) + 1;
    const [row] = await trx('price_versions')
      .insert({
        model_id: frozen.modelId,
        scope: frozen.scope,
        version,
        price: JSON.stringify(frozen.price),
        pricing: JSON.stringify(frozen.pricing),
        price_hash: frozen.hash,
      })
      .returning<Array<{ id: bigint }>>('id');
    return { id: BigInt(row!.id), version };
  });
}
