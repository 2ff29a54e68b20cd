import type { AdminOperations } from '../../types.ts';
import type { Ok, RequestContext } from '../handler.ts';
import { catalogueOverviewToWire } from '../serialize/catalogue.ts';

export async function admin_catalogue_get(ctx: RequestContext): Promise<Ok<AdminOperations, 'admin_catalogue_get'>> {
  return { status: 200, body: catalogueOverviewToWire(ctx.services.discovery.overview()) };
}
