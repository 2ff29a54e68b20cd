// Findings of the fuzz suite whose fix belongs to another owner (a domain service or a contract
// file being rewritten). Each is matched narrowly (operation, status, and the gateway's own log
// line for that request), so it is reported on every run without failing it, while any other
// failure still fails. Remove an entry once its owner has fixed it; an entry that no longer
// matches anything is reported as stale.

export interface KnownFinding {
  id: string;
  owner: string;
  operationId: string;
  status: number;
  /** Matched against the error log lines the gateway wrote for the request. */
  log: RegExp;
  summary: string;
}

export const KNOWN_FINDINGS: KnownFinding[] = [];

export function knownFindingFor(operationId: string | undefined, status: number, errorLogs: string[]): KnownFinding | undefined {
  return KNOWN_FINDINGS.find((f) => f.operationId === operationId && f.status === status && errorLogs.some((line) => f.log.test(line)));
}
