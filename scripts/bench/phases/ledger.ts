// Money after a database's run: the gateway holds per-process credit grants while busy and gives
// them back once idle (GRANT_IDLE_MS, default 30 s), so the bench waits for the wallet's reserved
// amount to reach 0, then asks for the reconciliation (wallets against their journal, key spend,
// holds of dead processes). Also the warning and error lines of the gateway's JSON log.
import fs from 'node:fs';
import readline from 'node:readline';
import type { Gateway } from '../processes.ts';
import type { DatabaseResults, LedgerResults } from '../results.ts';
import { round2 } from '../summarise.ts';

export async function ledgerCheck(gateway: Gateway, idleSince: number, waitMs = 60_000): Promise<LedgerResults> {
  try {
    return await check(gateway, idleSince, waitMs);
  } catch (error) {
    // The gateway is gone (see the run's unexpected exits): nothing to ask, the other database still runs.
    return { reserved: null, reconciliationOk: null, waitedSeconds: round2((Date.now() - idleSince) / 1000), detail: `not checked: ${(error as Error).message}` };
  }
}

async function check(gateway: Gateway, idleSince: number, waitMs: number): Promise<LedgerResults> {
  const deadline = Date.now() + waitMs;
  let wallet = (await gateway.admin('GET', `/admin/v1/customers/${gateway.customerId}/wallet`)).body;
  while (Number(wallet.reserved) !== 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    wallet = (await gateway.admin('GET', `/admin/v1/customers/${gateway.customerId}/wallet`)).body;
  }
  const waitedSeconds = round2((Date.now() - idleSince) / 1000);
  const reconciliation = (await gateway.admin('GET', '/admin/v1/ledger/reconciliation')).body;
  const ok = typeof reconciliation.ok === 'boolean' ? reconciliation.ok : null;
  const detail = ok === false
    ? JSON.stringify({ mismatches: reconciliation.mismatches, key_spend_mismatches: reconciliation.key_spend_mismatches, stale_holds: reconciliation.stale_holds }).slice(0, 600)
    : Number(wallet.reserved) !== 0
      ? `reserved still ${wallet.reserved} after ${waitMs / 1000} s`
      : undefined;
  return { reserved: wallet.reserved ?? null, reconciliationOk: ok, waitedSeconds, ...(detail ? { detail } : {}) };
}

/**
 * Counts pino lines at warn (40) and above and keeps the first error's (else warning's) line; and
 * the warnings that libraries print on stderr (node-cron: "task still running, new execution
 * blocked by overlap prevention", a per-second job that took over a second).
 */
export async function scanGatewayLog(file: string, stderrFile: string, timeline: Array<{ at: number; phase: string }>): Promise<DatabaseResults['gatewayLog']> {
  const out: DatabaseResults['gatewayLog'] = { warnings: 0, errors: 0 };
  const stderr = fs.existsSync(stderrFile) ? fs.readFileSync(stderrFile, 'utf8').split('\n') : [];
  const warned = stderr.map((line) => line.replace(/\x1b\[[0-9;]*m/g, '')).filter((line) => /WARN|Warning|Error|error/.test(line));
  if (warned.length) {
    // node-cron stamps its lines "[2026-11-23T17:01:52.019Z]": count them by the phase running then.
    const byPhase: Record<string, number> = {};
    for (const line of warned) {
      const at = Date.parse(/^\[([^\]]+)\]/.exec(line)?.[1] ?? '');
      const phase = Number.isNaN(at) ? 'unknown' : ([...timeline].reverse().find((t) => t.at <= at)?.phase ?? 'start');
      byPhase[phase] = (byPhase[phase] ?? 0) + 1;
    }
    Object.assign(out, { stderrWarnings: warned.length, stderrByPhase: byPhase, firstStderr: warned[0]!.slice(0, 200) });
  }
  if (!fs.existsSync(file)) return out;
  for await (const line of readline.createInterface({ input: fs.createReadStream(file) })) {
    const level = /"level":(\d+)/.exec(line)?.[1];
    if (!level || Number(level) < 40) continue;
    if (Number(level) >= 50) out.errors++;
    else out.warnings++;
    if (!out.first || (Number(level) >= 50 && out.errors === 1)) out.first = line.slice(0, 300);
  }
  return out;
}
