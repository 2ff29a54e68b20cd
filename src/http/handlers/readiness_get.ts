import type { JsonReply, PublicContext } from '../handler.ts';

/** Readiness: the database answers, a catalogue is loaded and the process is not draining. */
export async function readiness_get(ctx: PublicContext<'readiness_get'>): Promise<JsonReply> {
  const checks = await ctx.services.health.check();
  const ready = Object.values(checks).every((v) => v === 'ok');
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not_ready', checks } };
}
