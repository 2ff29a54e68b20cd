import type { Knex } from 'knex';
import type { CatalogueStore } from '../../catalogue/store.ts';

export type CheckResult = 'ok' | 'error';

export interface HealthService {
  check(): Promise<{ database: CheckResult; catalogue: CheckResult; accepting: CheckResult }>;
}

/** `draining()`: the process is shutting down and wants no new requests (readiness goes 503 at once). */
export function createHealthService(deps: { db: Knex; catalogue: CatalogueStore; draining: () => boolean; timeoutMs?: number }): HealthService {
  const timeoutMs = deps.timeoutMs ?? 2000;
  async function database(): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<CheckResult>((resolve) => (timer = setTimeout(() => resolve('error'), timeoutMs)));
    const probe = deps.db.raw('select 1').then(
      () => 'ok' as const,
      () => 'error' as const,
    );
    try {
      return await Promise.race([probe, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
  return {
    async check() {
      let catalogue: CheckResult = 'ok';
      try {
        deps.catalogue.current();
      } catch {
        catalogue = 'error';
      }
      if (deps.draining()) return { database: 'ok', catalogue, accepting: 'error' };
      return { database: await database(), catalogue, accepting: 'ok' };
    },
  };
}
