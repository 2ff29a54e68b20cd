// PostgreSQL notifications (LISTEN/NOTIFY) on one channel, on a connection of their own: a pooled
// connection goes back to the pool between queries, and a LISTEN lives only as long as its
// session. Notifications sent while the connection is down are lost for good, so the caller is
// told each time listening (re)starts and resynchronises then. The connection is checked with a
// query every `checkMs`: a network that drops packets silently would otherwise leave it looking
// open for as long as TCP takes to notice (minutes), while notifications go nowhere.
import pg from 'pg';
import type { Logger } from '../logger.ts';

export interface ChannelListenerOptions {
  connectionString: string;
  channel: string;
  logger: Logger;
  onNotification(payload: string): void;
  /** LISTEN is in force (the first time or again): whatever was sent meanwhile was missed. */
  onListening(): void;
  /** The connection was lost: nothing arrives until the next `onListening`. */
  onLost?(): void;
  /** How often the connection is checked; a check that fails or takes longer ends it. */
  checkMs?: number;
  /** How long a connection attempt may take (0: the driver's default, no limit). */
  connectTimeoutMs?: number;
}

export interface ChannelListener {
  listening(): boolean;
  /** Stops listening and closes the connection; no reconnection follows. */
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 2_000;

export function listenToChannel(options: ChannelListenerOptions): ChannelListener {
  const { logger, channel } = options;
  const checkMs = options.checkMs ?? 5_000;
  let closed = false;
  let current: { client: pg.Client; drop(error?: Error): void } | undefined;
  let listening = false;
  let retryMs = FIRST_RETRY_MS;
  let failures = 0;
  let started = false;
  let retry: NodeJS.Timeout | undefined;

  function reconnectLater(): void {
    if (closed) return;
    retry = setTimeout(() => void connect(), retryMs);
    retry.unref();
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
  }

  async function connect(): Promise<void> {
    retry = undefined;
    if (closed) return;
    const client = new pg.Client({
      connectionString: options.connectionString,
      application_name: 'gateway-listener',
      keepAlive: true,
      ...(options.connectTimeoutMs ? { connectionTimeoutMillis: options.connectTimeoutMs } : {}),
    });
    const timers: { check?: NodeJS.Timeout } = {};
    let dropped = false;
    const drop = (error?: Error) => {
      if (dropped) return;
      dropped = true;
      clearInterval(timers.check);
      if (current?.client === client) current = undefined;
      destroySocket(client);
      if (listening) {
        listening = false;
        logger.warn({ channel, err: error?.message }, 'lost the connection that listens for changes; reconnecting');
        options.onLost?.();
      } else if (failures++ === 0 && !closed) {
        logger.warn({ channel, err: error?.message }, 'could not listen for changes; retrying');
      }
      reconnectLater();
    };
    current = { client, drop };
    client.on('error', drop);
    client.on('end', () => drop(new Error('connection ended')));
    client.on('notification', (message) => {
      if (message.channel === channel) options.onNotification(message.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`listen ${client.escapeIdentifier(channel)}`);
    } catch (error) {
      drop(error as Error);
      return;
    }
    if (dropped) return;
    if (closed) return drop();
    listening = true;
    retryMs = FIRST_RETRY_MS;
    if (started) logger.info({ channel }, 'listening for changes again');
    started = true;
    failures = 0;
    options.onListening();
    let checking = false;
    timers.check = setInterval(() => {
      if (checking) return drop(new Error(`no answer to a check within ${checkMs} ms`));
      checking = true;
      client.query('select 1').then(
        () => (checking = false),
        (error: Error) => drop(error),
      );
    }, checkMs);
    timers.check.unref();
  }

  void connect();
  return {
    listening: () => listening,
    async close() {
      closed = true;
      clearTimeout(retry);
      const open = current;
      if (!open) return;
      listening = false;
      // end() says goodbye to the server; on a dead network it would wait forever, so it is bounded.
      await Promise.race([open.client.end().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      open.drop();
    },
  };
}

/** Closes the socket under a client whatever state it is in (pg has no public way to). */
function destroySocket(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}
