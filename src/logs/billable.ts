// Which requests are billable: those that can hold and charge money. A customer's request log and
// the operators' read them apart from the rest (the console's own reads of the wallet, the key,
// the log; discovery; token counts), which are free and never settled.

/** Operations that create paid work: their requests are billable whatever became of them (a 402, a 400 of the provider). */
export const BILLABLE_ENDPOINTS: readonly string[] = ['messages_create', 'chat_completions_create', 'responses_create', 'responses_compact', 'videos_create'];

/** A request is billable when its operation creates paid work or the gateway priced it (any other operation that holds). */
export const isBillable = (row: { endpoint: string; price_version_id: bigint | string | null }): boolean =>
  BILLABLE_ENDPOINTS.includes(row.endpoint) || row.price_version_id !== null;
