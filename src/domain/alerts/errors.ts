// What can go wrong with alert settings. Status codes and wire shapes: src/http/errors.ts.
export enum AlertError {
  /** Not an http(s) URL, credentials in it, or an internal address the operator did not allow. */
  WebhookUrlRefused = 'webhook_url_refused',
  /** Video events switched on with nowhere to send them. */
  WebhookUrlRequired = 'webhook_url_required',
}
