// Keys and customers changed by another process on the same PostgreSQL database (a replica, a
// script): every update or delete of their rows sends a notification in its own transaction (the
// trigger of migration 20261126100000_key_change_notifications), and this process forgets what it
// remembered of that key or customer as soon as the notification arrives (PostgreSQL sends it at
// commit). Whatever was sent while the listening connection was down is lost, so each (re)connection
// forgets every key; the cache's own lifetime (`KEY_CACHE_MS`) bounds a change that still slips
// through (a connection that died without a word, until its next check).
import { listenToChannel, type ChannelListener } from '../db/notifications.ts';
import type { Logger } from '../logger.ts';
import type { KeyChangeMetrics } from '../metrics/hooks.ts';

/** The channel the migration's trigger notifies on. */
export const KEY_CHANGES_CHANNEL = 'gateway_key_changes';

/**
 * What changed: one key, a customer (all its keys), a price plan (its customers' prices), or
 * anything (missed or unreadable notices).
 */
export type KeysChanged = { keyId: string } | { customerId: string } | { planId: string } | 'anything';

export function parseKeysChanged(payload: string): KeysChanged {
  try {
    const notice = JSON.parse(payload) as { key?: unknown; customer?: unknown; plan?: unknown };
    if (typeof notice.key === 'string') return { keyId: notice.key };
    if (typeof notice.customer === 'string') return { customerId: notice.customer };
    if (typeof notice.plan === 'string') return { planId: notice.plan };
  } catch {
    // not JSON: forgetting everything is always safe
  }
  return 'anything';
}

export interface KeyChangeDeps {
  connectionString: string;
  /** Forgets what is remembered of what changed (CustomerService.forgetChanged). */
  forget(change: KeysChanged): void;
  logger: Logger;
  metrics?: KeyChangeMetrics;
  /** How long a connection attempt may take (0: no limit). */
  connectTimeoutMs: number;
}

/** Listens for key and customer changes until closed; reconnects by itself. */
export function followKeyChanges(deps: KeyChangeDeps): ChannelListener {
  return listenToChannel({
    connectionString: deps.connectionString,
    channel: KEY_CHANGES_CHANNEL,
    logger: deps.logger,
    connectTimeoutMs: deps.connectTimeoutMs,
    onNotification(payload) {
      deps.metrics?.keyChangeNotified();
      deps.forget(parseKeysChanged(payload));
    },
    onListening() {
      deps.metrics?.keyChangesListening(true);
      deps.forget('anything');
    },
    onLost() {
      deps.metrics?.keyChangesListening(false);
    },
  });
}
