import type { PublicOperations } from '../../types.ts';
import type { Reply } from '../handler.ts';

/** Liveness: the process answers. Dependencies are /readyz's business. */
export async function health_get(): Promise<Reply<PublicOperations, 'health_get'>> {
  return { status: 200, body: { status: 'ok' } };
}
