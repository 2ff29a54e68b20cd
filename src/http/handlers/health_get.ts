import type { PublicOperations } from '../../types.ts';
import type { Failure } from '../../domain/failure.ts';
import type { Ok } from '../handler.ts';

/** Liveness: the process answers. Dependencies are /readyz's business. */
export async function health_get(): Promise<Ok<PublicOperations, 'health_get'> | Failure> {
  return { status: 200, body: { status: 'ok' } };
}
