import type { CatalogueStore } from './catalogue/store.ts';
import type { AccountService } from './domain/account/service.ts';
import type { BillingService } from './domain/billing/service.ts';
import type { Alerts } from './domain/alerts/service.ts';
import type { ChatService } from './domain/chat/service.ts';
import type { ResponsesService } from './domain/responses/service.ts';
import type { CustomerService } from './customers/service.ts';
import type { DiscoveryService } from './domain/discovery/service.ts';
import type { GeminiService } from './domain/gemini/service.ts';
import type { HealthService } from './domain/health/service.ts';
import type { HoldsReview } from './domain/holds/service.ts';
import type { MessagesService } from './domain/messages/service.ts';
import type { RedeemCodes } from './domain/redeem/service.ts';
import type { VideoReview } from './domain/videos/review.ts';
import type { VideoService } from './domain/videos/service.ts';
import type { TaskWorker } from './tasks/worker.ts';
import type { Holds } from './holds/holds.ts';
import type { Ledger } from './ledger/service.ts';
import type { Settler } from './holds/settler.ts';
import type { Sweeper } from './holds/sweeper.ts';
import type { RequestLogs } from './logs/request-logs.ts';
import type { Metrics } from './metrics/registry.ts';

/** Everything handlers may call. Built once in src/gateway.ts. */
export interface Services {
  customers: CustomerService;
  /** A customer's own view (wallet, key, requests, usage), scoped to the caller. */
  account: AccountService;
  /** Receipts and usage exports (a caller's own, or any for operators). */
  billing: BillingService;
  /** Redeem codes: batches minted by operators, redeemed by customers for credit. */
  redeem: RedeemCodes;
  /** Low-balance alerts and video events as signed webhooks, and their delivery log. */
  alerts: Alerts;
  catalogue: CatalogueStore;
  discovery: DiscoveryService;
  health: HealthService;
  ledger: Ledger;
  holds: Holds;
  holdsReview: HoldsReview;
  settler: Settler;
  sweeper: Sweeper;
  messages: MessagesService;
  chat: ChatService;
  responses: ResponsesService;
  gemini: GeminiService;
  videos: VideoService;
  /** The task engine's poller (every kind: videos, background responses), named for its first kind. */
  videoWorker: TaskWorker;
  videoReview: VideoReview;
  requestLogs: RequestLogs;
  metrics: Metrics;
}
