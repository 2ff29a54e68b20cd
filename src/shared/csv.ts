// CSV as spreadsheets read it (RFC 4180, CRLF lines). Pure, with nothing of ours imported: the
// usage exports, the operator CLI and the web console write their files with it.

/** RFC 4180 quoting; a cell a spreadsheet would run as a formula is prefixed with a quote mark. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (cells: Array<string | number | boolean | null | undefined>): string => `${cells.map(csvCell).join(',')}\r\n`;

/** A minted batch of redeem codes as the file an operator keeps: one code a line, the clear codes in it. */
export function redeemCodesCsv(batch: {
  id: string;
  amount: string;
  currency: string;
  expires_at: string;
  note: string | null;
  codes: Array<{ id: string; code: string }>;
}): string {
  const header = csvLine(['code', 'code_id', 'amount', 'currency', 'expires_at', 'batch_id', 'note']);
  return header + batch.codes.map((c) => csvLine([c.code, c.id, batch.amount, batch.currency, batch.expires_at, batch.id, batch.note])).join('');
}
