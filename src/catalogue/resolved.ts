// A catalogue as loaded: its models with the routes an enabled provider serves (store.ts builds
// them; names.ts indexes them by the names clients send).
import type { PriceVersion } from './price-versions.ts';
import type { ModelEntry, ResolvedProvider, RouteEntry } from './types.ts';

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
