import type { AdminOperations, PublicOperations } from '../../types.ts';
import type { HandlersOf } from '../handler.ts';
import { admin_api_keys_create } from './admin_api_keys_create.ts';
import { admin_api_keys_get } from './admin_api_keys_get.ts';
import { admin_api_keys_rotate } from './admin_api_keys_rotate.ts';
import { admin_api_keys_update } from './admin_api_keys_update.ts';
import { admin_api_keys_list } from './admin_api_keys_list.ts';
import { admin_api_keys_revoke } from './admin_api_keys_revoke.ts';
import { admin_catalogue_get } from './admin_catalogue_get.ts';
import { admin_catalogue_reload } from './admin_catalogue_reload.ts';
import { admin_adjustments_create } from './admin_adjustments_create.ts';
import { admin_credits_create } from './admin_credits_create.ts';
import { admin_ledger_list } from './admin_ledger_list.ts';
import { admin_reconciliation_get } from './admin_reconciliation_get.ts';
import { admin_reservations_list } from './admin_reservations_list.ts';
import { admin_reservations_resolve } from './admin_reservations_resolve.ts';
import { admin_receipts_get } from './admin_receipts_get.ts';
import { admin_redeem_batches_create } from './admin_redeem_batches_create.ts';
import { admin_redeem_batches_get } from './admin_redeem_batches_get.ts';
import { admin_redeem_batches_list } from './admin_redeem_batches_list.ts';
import { admin_redeem_batches_void } from './admin_redeem_batches_void.ts';
import { admin_redeem_codes_list } from './admin_redeem_codes_list.ts';
import { admin_redeem_codes_void } from './admin_redeem_codes_void.ts';
import { admin_request_logs_list } from './admin_request_logs_list.ts';
import { admin_usage_get } from './admin_usage_get.ts';
import { admin_usage_export } from './admin_usage_export.ts';
import { admin_alerts_get } from './admin_alerts_get.ts';
import { admin_alerts_update } from './admin_alerts_update.ts';
import { admin_webhook_deliveries_list } from './admin_webhook_deliveries_list.ts';
import { admin_wallets_get } from './admin_wallets_get.ts';
import { admin_video_tasks_get } from './admin_video_tasks_get.ts';
import { admin_video_tasks_list } from './admin_video_tasks_list.ts';
import { admin_video_tasks_resolve } from './admin_video_tasks_resolve.ts';
import { admin_customers_create } from './admin_customers_create.ts';
import { admin_customers_get } from './admin_customers_get.ts';
import { admin_customers_list } from './admin_customers_list.ts';
import { admin_customers_update } from './admin_customers_update.ts';
import { chat_completions_create } from './chat_completions_create.ts';
import { credits_redeem } from './credits_redeem.ts';
import { gemini_count_tokens } from './gemini_count_tokens.ts';
import { gemini_generate_content } from './gemini_generate_content.ts';
import { gemini_models_get } from './gemini_models_get.ts';
import { gemini_models_list } from './gemini_models_list.ts';
import { gemini_stream_generate_content } from './gemini_stream_generate_content.ts';
import { health_get } from './health_get.ts';
import { messages_count_tokens } from './messages_count_tokens.ts';
import { messages_create } from './messages_create.ts';
import { metrics_get } from './metrics_get.ts';
import { models_list } from './models_list.ts';
import { models_pricing } from './models_pricing.ts';
import { models_retrieve } from './models_retrieve.ts';
import { readiness_get } from './readiness_get.ts';
import { responses_cancel } from './responses_cancel.ts';
import { responses_compact } from './responses_compact.ts';
import { responses_create } from './responses_create.ts';
import { responses_delete } from './responses_delete.ts';
import { responses_get } from './responses_get.ts';
import { responses_input_items } from './responses_input_items.ts';
import { responses_input_tokens } from './responses_input_tokens.ts';
import { responses_websocket } from './responses_websocket.ts';
import { videos_cancel } from './videos_cancel.ts';
import { videos_content } from './videos_content.ts';
import { videos_create } from './videos_create.ts';
import { videos_get } from './videos_get.ts';
import { videos_list } from './videos_list.ts';
import { billing_subscription_get } from './billing_subscription_get.ts';
import { billing_usage_get } from './billing_usage_get.ts';
import { key_get } from './key_get.ts';
import { requests_get } from './requests_get.ts';
import { requests_list } from './requests_list.ts';
import { usage_export } from './usage_export.ts';
import { alerts_get } from './alerts_get.ts';
import { alerts_update } from './alerts_update.ts';
import { usage_get } from './usage_get.ts';
import { wallet_get } from './wallet_get.ts';

/**
 * Handlers by operationId. `satisfies` makes the type checker prove each map complete against the
 * operations openapi-typescript generated from the contract (and free of names it does not have):
 * an operation added to openapi/ without a handler fails `npm run typecheck`.
 */
export const publicHandlers = {
  health_get,
  readiness_get,
  models_list,
  models_retrieve,
  models_pricing,
  messages_create,
  messages_count_tokens,
  chat_completions_create,
  responses_create,
  responses_get,
  responses_delete,
  responses_cancel,
  responses_input_items,
  responses_input_tokens,
  responses_websocket,
  responses_compact,
  gemini_generate_content,
  gemini_stream_generate_content,
  gemini_count_tokens,
  gemini_models_list,
  gemini_models_get,
  videos_create,
  videos_get,
  videos_list,
  videos_cancel,
  videos_content,
  wallet_get,
  key_get,
  requests_list,
  requests_get,
  usage_get,
  usage_export,
  credits_redeem,
  alerts_get,
  alerts_update,
  billing_subscription_get,
  billing_usage_get,
} satisfies HandlersOf<PublicOperations>;

export const adminHandlers = {
  admin_customers_create,
  admin_customers_get,
  admin_customers_list,
  admin_customers_update,
  admin_api_keys_create,
  admin_api_keys_list,
  admin_api_keys_get,
  admin_api_keys_update,
  admin_api_keys_rotate,
  admin_api_keys_revoke,
  admin_catalogue_get,
  admin_catalogue_reload,
  admin_credits_create,
  admin_adjustments_create,
  admin_redeem_batches_create,
  admin_redeem_batches_list,
  admin_redeem_batches_get,
  admin_redeem_batches_void,
  admin_redeem_codes_list,
  admin_redeem_codes_void,
  admin_wallets_get,
  admin_ledger_list,
  admin_request_logs_list,
  admin_usage_get,
  admin_receipts_get,
  admin_reconciliation_get,
  admin_usage_export,
  admin_alerts_get,
  admin_alerts_update,
  admin_webhook_deliveries_list,
  admin_reservations_list,
  admin_reservations_resolve,
  admin_video_tasks_list,
  admin_video_tasks_get,
  admin_video_tasks_resolve,
  metrics_get,
} satisfies HandlersOf<AdminOperations>;
