// Billing a customer can check (issue 28): receipts per request and task, and usage exports that
// tie out to the journal. Scoped to the caller's customer where a caller is given.
import type { Knex } from 'knex';
import { customerExists, type Ledger } from '../../ledger/index.ts';
import type { Caller } from '../../customers/service.ts';
import { CustomerError } from '../../customers/errors.ts';
import type { DiscoveryService } from '../discovery/service.ts';
import { Failure } from '../failure.ts';
import type { Sink } from '../sink.ts';
import { AccountError } from '../account/errors.ts';
import { finalWindow } from '../account/window.ts';
import { streamExport, type ExportFormat } from './export.ts';
import { marginReport, marginTotals } from './margin.ts';
import { quoteVideo } from './quote.ts';
import { findReceipt } from './receipts.ts';

export interface ExportRequest {
  /** Inclusive: an RFC 3339 instant, or a date (its 00:00 UTC). Default: the first of this month. */
  from?: string;
  /** Exclusive, as `from`; at most the watermark (else 425). Default: the watermark. */
  to?: string;
  format: ExportFormat;
}

/** A date (YYYY-MM-DD) is its midnight UTC; anything else the contract admitted is an instant. */
const instant = (value: string): Date => new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);

export function createBillingService(deps: { db: Knex; ledger: Ledger; discovery: DiscoveryService; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());

  /**
   * The period asked for, final: `to` at or before the watermark (else 425), or the watermark when
   * `to` is left out (docs/money.md, "The export watermark").
   */
  async function range(request: ExportRequest, customerId: string | undefined) {
    const to = request.to ? instant(request.to) : undefined;
    const from = request.from ? instant(request.from) : new Date(`${now().toISOString().slice(0, 8)}01T00:00:00Z`);
    if (Number.isNaN(from.getTime()) || (to && (Number.isNaN(to.getTime()) || from >= to)))
      return new Failure(AccountError.InvalidDateRange, '`from` must be before `to` (an RFC 3339 instant or a date, UTC).', { param: 'from' });
    const window = await finalWindow(deps.db, { from, to });
    if (window instanceof Failure) return window;
    return { from, to: window.to, watermark: window.watermark, ...(customerId ? { customerId } : {}) };
  }

  return {
    /** The receipt of one of the caller's requests or video tasks. */
    receipt: (caller: Caller, id: string) => findReceipt(deps.db, id, caller.customerId),
    /** Any customer's (operators). */
    receiptOfAny: (id: string) => findReceipt(deps.db, id),

    /** What `POST /v1/videos` would hold for this body now (`dry_run: true`): nothing is created or charged. */
    quoteVideo: (caller: Caller, body: Record<string, unknown>) => quoteVideo(deps, caller, body),

    /** Streams the caller's export to the sink; a failure comes before any byte. */
    async exportOwn(caller: Caller, request: ExportRequest, sink: Sink) {
      const period = await range(request, caller.customerId);
      if (period instanceof Failure) return period;
      return streamExport(deps.db, period, request.format, deps.discovery.currency(), sink);
    },

    /** Revenue, upstream cost and margin by customer and model in a period (operators; margin.ts). */
    async margin(customerId: string | undefined, request: Omit<ExportRequest, 'format'>) {
      const period = await range({ ...request, format: 'csv' }, customerId);
      if (period instanceof Failure) return period;
      if (customerId && !(await customerExists(deps.db, customerId))) return new Failure(CustomerError.CustomerNotFound, 'No customer with this id.');
      const rows = await marginReport(deps.db, period);
      return { ...period, rows, totals: marginTotals(rows) };
    },

    /** One customer's export, or every customer's (operators). */
    async exportAny(customerId: string | undefined, request: ExportRequest, sink: Sink) {
      if (customerId && !(await customerExists(deps.db, customerId))) return new Failure(CustomerError.CustomerNotFound, 'No customer with this id.');
      const period = await range(request, customerId);
      if (period instanceof Failure) return period;
      return streamExport(deps.db, period, request.format, deps.discovery.currency(), sink, 'operator');
    },
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
