import type { AdminOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';

export async function admin_catalogue_reload(ctx: RequestContext): Promise<Reply<AdminOperations, 'admin_catalogue_reload'>> {
  const result = await ctx.services.catalogue.reload();
  if (!result.ok) {
    return {
      status: 422,
      body: {
        error: {
          message: `The catalogue file is invalid; the previous catalogue stays loaded. ${result.errors.join('; ')}`,
          type: 'invalid_request_error',
          code: 'catalogue_invalid',
          param: null,
        },
      },
    };
  }
  return {
    status: 200,
    body: {
      status: result.status,
      loaded_at: result.loadedAt.toISOString(),
      models: result.models,
      price_versions_created: result.priceVersionsCreated,
    },
  };
}
