import type { Knex } from 'knex';
import * as createCustomersAndKeys from './20261122120000_create_customers_and_api_keys.ts';
import * as createPriceVersions from './20261122120100_create_price_versions.ts';
import * as createLedger from './20261122130000_create_ledger.ts';
import * as createRequestLogs from './20261122130100_create_request_logs.ts';
import * as createVideoTasks from './20261122140000_create_video_tasks.ts';
import * as ledgerOneResolution from './20261122130200_ledger_one_resolution.ts';
import * as reservationOwners from './20261123100000_reservation_owners.ts';
import * as creditGrants from './20261123120000_credit_grants.ts';
import * as videoTaskPlan from './20261124100000_video_task_plan.ts';
import * as customerControls from './20261124100000_customer_controls.ts';
import * as keyChangeNotifications from './20261126100000_key_change_notifications.ts';
import * as debtAndTrueUp from './20261126110000_debt_and_true_up.ts';
import * as videoQueue from './20261126120000_video_queue.ts';
import * as responseIds from './20261126120000_response_ids.ts';
import * as backgroundResponses from './20261126130000_background_responses.ts';
import * as requestLogReceipts from './20261127100000_request_log_receipts.ts';
import * as usageExportIndex from './20261127110000_usage_export_index.ts';
import * as billingAlerts from './20261127120000_billing_alerts.ts';
import * as requestLogNamesAndSessions from './20261128100000_request_log_names_and_sessions.ts';
import * as taskKindsAndCustomerPauses from './20261128120000_task_kinds_and_customer_pauses.ts';
import * as redeemCodes from './20261128120000_redeem_codes.ts';
import * as commitOrderedTimes from './20261128150000_commit_ordered_times.ts';
import * as pricedRecordsMark from './20261128160000_priced_records_mark.ts';
import * as pricePlans from './20261128170000_price_plans.ts';
import * as requestLogPartitions from './20261128180000_request_log_partitions.ts';
import * as usageByDayIndex from './20261128190000_usage_by_day_index.ts';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Migrations are listed here rather than discovered on disk, so they load the same way under tsx,
 * the knex CLI and a bundled build. Append new ones at the end; never reorder or rename.
 */
const migrations: Array<[string, Migration]> = [
  ['20261122120000_create_customers_and_api_keys', createCustomersAndKeys],
  ['20261122120100_create_price_versions', createPriceVersions],
  ['20261122130000_create_ledger', createLedger],
  ['20261122130100_create_request_logs', createRequestLogs],
  ['20261122140000_create_video_tasks', createVideoTasks],
  ['20261122130200_ledger_one_resolution', ledgerOneResolution],
  ['20261123100000_reservation_owners', reservationOwners],
  ['20261123120000_credit_grants', creditGrants],
  ['20261124100000_video_task_plan', videoTaskPlan],
  ['20261124100000_customer_controls', customerControls],
  ['20261126100000_key_change_notifications', keyChangeNotifications],
  ['20261126110000_debt_and_true_up', debtAndTrueUp],
  ['20261126120000_video_queue', videoQueue],
  ['20261126120000_response_ids', responseIds],
  ['20261126130000_background_responses', backgroundResponses],
  ['20261127100000_request_log_receipts', requestLogReceipts],
  ['20261127110000_usage_export_index', usageExportIndex],
  ['20261127120000_billing_alerts', billingAlerts],
  ['20261128100000_request_log_names_and_sessions', requestLogNamesAndSessions],
  ['20261128120000_task_kinds_and_customer_pauses', taskKindsAndCustomerPauses],
  ['20261128120000_redeem_codes', redeemCodes],
  ['20261128150000_commit_ordered_times', commitOrderedTimes],
  ['20261128160000_priced_records_mark', pricedRecordsMark],
  ['20261128170000_price_plans', pricePlans],
  ['20261128180000_request_log_partitions', requestLogPartitions],
  ['20261128190000_usage_by_day_index', usageByDayIndex],
];

export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => migrations,
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};
