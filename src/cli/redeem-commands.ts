// The operator CLI's redeem-code commands (src/cli/commands.ts lists them with the rest).
import { redeemCodesCsv } from '../shared/csv.ts';
import { defined, enc, integer, query, type Command } from './command-parts.ts';

export const REDEEM_COMMANDS: Record<string, Command> = {
  'redeem mint': {
    usage: 'redeem mint --amount 5.00 --count 10 --expires ISO [--note TEXT] [--out FILE]   (the codes as CSV, shown this once: to FILE or stdout)',
    method: 'POST',
    path: () => '/admin/v1/redeem-batches',
    body: (o) => defined({ amount: o.amount, count: o.count === undefined ? undefined : integer(o.count), expires_at: o.expires, note: o.note }),
    render: (batch) => ({
      text: redeemCodesCsv(batch),
      note: `Minted ${batch.count} codes of ${batch.amount} ${batch.currency} (batch ${batch.id}), redeemable until ${batch.expires_at}. This CSV is the only copy of the codes.`,
    }),
  },
  'redeem batches': {
    usage: 'redeem batches [--limit N] [--after BATCH_ID]   (newest first, with how many codes are active, redeemed, voided, expired)',
    method: 'GET',
    path: (_, o = {}) => `/admin/v1/redeem-batches${query({ limit: o.limit, after: o.after })}`,
  },
  'redeem batch': { usage: 'redeem batch BATCH_ID', method: 'GET', path: ([id]) => `/admin/v1/redeem-batches/${enc(id)}` },
  'redeem codes': {
    usage:
      'redeem codes [--batch BATCH_ID] [--status active|redeemed|voided|expired] [--customer ID] [--limit N] [--after CODE_ID]   (who redeemed each, when)',
    method: 'GET',
    path: (_, o = {}) => `/admin/v1/redeem-codes${query({ batch_id: o.batch, status: o.status, customer_id: o.customer, limit: o.limit, after: o.after })}`,
  },
  'redeem void': {
    usage: 'redeem void CODE_ID [--reason WHY]   (a redeemed code keeps its credit: 409)',
    method: 'POST',
    path: ([id]) => `/admin/v1/redeem-codes/${enc(id)}/void`,
    body: (o) => defined({ reason: o.reason }),
  },
  'redeem void-batch': {
    usage: 'redeem void-batch BATCH_ID [--reason WHY]   (every code of the batch not redeemed)',
    method: 'POST',
    path: ([id]) => `/admin/v1/redeem-batches/${enc(id)}/void`,
    body: (o) => defined({ reason: o.reason }),
  },
};
