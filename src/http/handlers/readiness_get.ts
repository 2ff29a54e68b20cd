import type { PublicOperations } from '../../types.ts';
import type { Reply, RequestContext } from '../handler.ts';

/** Readiness: the database answers and a catalogue is loaded; a load balancer drains us otherwise. */
export async function readiness_get(ctx: RequestContext): Promise<Reply<PublicOperations, 'readiness_get'>> {
  const checks = await ctx.services.health.check();
  const ready = Object.values(checks).every((v) => v === 'ok');
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not_ready', checks } };
}
