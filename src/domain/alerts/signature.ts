// Standard Webhooks signatures (https://www.standardwebhooks.com): each delivery carries
// `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256>`
// of `<id>.<timestamp>.<body>`, keyed by the base64 part of the customer's `whsec_` secret.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export const newWebhookSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one delivery attempt. */
export function signedHeaders(secret: string, id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, id, timestamp, body),
  };
}
