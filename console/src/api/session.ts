// Who is signed in, kept in this tab's session storage (gone when the tab closes, never in a
// cookie or a URL), and the two clients: the operators' API with the admin token, the public API
// with the customer's key.
import type { components as AdminComponents } from '../../../generated/admin.ts';
import type { components as PublicComponents } from '../../../generated/openapi.ts';
import { createClient, type AdminPaths, type PublicPaths } from './client.ts';

export type Session = { role: 'operator'; token: string } | { role: 'customer'; key: string };

export type AdminSchemas = AdminComponents['schemas'];
export type PublicSchemas = PublicComponents['schemas'];

const STORAGE_KEY = 'gateway-console';

let current: Session | null = read();

function read(): Session | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Session | null;
    if (value?.role === 'operator' && typeof value.token === 'string') return value;
    if (value?.role === 'customer' && typeof value.key === 'string') return value;
  } catch {
    // storage unavailable or unreadable: signed out
  }
  return null;
}

export const session = {
  get: (): Session | null => current,
  set(next: Session | null): void {
    current = next;
    try {
      if (next) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
      else sessionStorage.removeItem(STORAGE_KEY);
    } catch {
      // kept in memory only
    }
  },
};

/** The operators' API (`/admin/v1`), with the admin token of this session. */
export const adminApi = createClient<AdminPaths>(() => (current?.role === 'operator' ? current.token : null));
/** The public API (`/v1`), with the customer's key of this session. */
export const publicApi = createClient<PublicPaths>(() => (current?.role === 'customer' ? current.key : null));
/** The public API without a key (the catalogue's price list, as an operator sees it). */
export const anonymousApi = createClient<PublicPaths>(() => null);

/** A sign-in is checked by one call before it is kept: the API's refusal is the message shown. */
export async function signIn(next: Session): Promise<Session> {
  const probe = createClient<AdminPaths & PublicPaths>(() => (next.role === 'operator' ? next.token : next.key));
  if (next.role === 'operator') await probe.get('/admin/v1/customers', { query: { limit: 1 } });
  else await probe.get('/v1/key', {});
  session.set(next);
  return next;
}
