// What every operator CLI command is made of, and the helpers that turn its options into an API call.
export interface Command {
  usage: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path(positionals: string[], options?: Record<string, string | undefined>): string;
  body?(options: Record<string, string | undefined>): unknown;
  /**
   * The answer as text instead of JSON (a minted batch as CSV), to `--out FILE` when given, with a
   * line for the terminal on stderr.
   */
  render?(body: any): { text: string; note: string };
}

export class UsageError extends Error {}

export function integer(value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`not a whole number: ${value}`);
  return Number(value);
}

export const defined = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));

export function query(params: Record<string, string | undefined>): string {
  const entries = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  return entries.length ? `?${new URLSearchParams(entries).toString()}` : '';
}

export function enc(value: string | undefined): string {
  if (!value) throw new UsageError('missing an id argument');
  return encodeURIComponent(value);
}
