import { CatalogueError } from '../../catalogue/errors.ts';
import { Failure } from '../../domain/failure.ts';
import type { AdminOperations } from '../../types.ts';
import type { Ok, AdminContext } from '../handler.ts';

export async function admin_catalogue_reload(ctx: AdminContext<'admin_catalogue_reload'>): Promise<Ok<AdminOperations, 'admin_catalogue_reload'> | Failure> {
  const result = await ctx.services.catalogue.reload();
  if (!result.ok)
    return new Failure(CatalogueError.CatalogueInvalid, `The catalogue file is invalid; the previous catalogue stays loaded. ${result.errors.join('; ')}`);
  return {
    status: 200,
    body: { status: result.status, loaded_at: result.loadedAt.toISOString(), models: result.models, price_versions_created: result.priceVersionsCreated },
  };
}
