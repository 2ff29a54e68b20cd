import type { Knex } from 'knex';
import type { CatalogueStore } from '../../catalogue/store.ts';

export type CheckResult = 'ok' | 'error';

export interface HealthService {
  check(): Promise<{ database: CheckResult; catalogue: CheckResult }>;
}

export function createHealthService(deps: { db: Knex; catalogue: CatalogueStore; timeoutMs?: number }): HealthService {
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
      return { database: await database(), catalogue };
    },
  };
}
