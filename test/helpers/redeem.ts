// Redeem codes for tests: a batch minted through the admin API, and a customer's redemption.
import type { TestGateway } from './gateway.ts';

export const IN_A_YEAR = () => new Date(Date.now() + 365 * 86_400_000).toISOString();

export interface MintedBatch {
  id: string;
  codes: Array<{ id: string; code: string }>;
  body: any;
}

export async function mintBatch(
  gateway: Pick<TestGateway, 'admin'>,
  batch: { amount?: string; count?: number; expires_at?: string; note?: string } = {},
): Promise<MintedBatch> {
  const minted = await gateway.admin('POST', '/admin/v1/redeem-batches', { amount: '5.00', count: 3, expires_at: IN_A_YEAR(), ...batch });
  if (minted.status !== 201) throw new Error(`mint refused: ${minted.status} ${JSON.stringify(minted.body)}`);
  return { id: minted.body.id, codes: minted.body.codes, body: minted.body };
}

export async function redeem(url: string, key: string, code: string): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${url}/v1/credits/redeem`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}
