// Why each provider of the file is or is not callable now, for the operators' view of the
// catalogue (GET /admin/v1/catalogue). Never a credential's value, never a host: whether the
// variable is set, and what the registry made of it.
import type { ProviderEntry, ProviderProtocol, RegistryOptions, ResolvedProvider } from './types.ts';

/**
 * `enabled`: callable; `no_simulator`: a sandbox provider whose protocol has no simulator running
 * (listed and priced, no route); `sandbox_off`: a sandbox provider while SANDBOX=false;
 * `credential_missing`: its variable is unset or empty; `credential_invalid`: set, but refused
 * (a value of the wrong shape, logged when the catalogue loaded).
 */
export type ProviderStateName = 'enabled' | 'no_simulator' | 'sandbox_off' | 'credential_missing' | 'credential_invalid';

export interface ProviderState {
  id: string;
  protocol: ProviderProtocol;
  sandbox: boolean;
  /** The variable's name (real providers); its value is never read here beyond being set. */
  credentialEnv: string | null;
  credentialSet: boolean | null;
  state: ProviderStateName;
}

export function providerStates(entries: readonly ProviderEntry[], enabled: ReadonlyMap<string, ResolvedProvider>, options: RegistryOptions): ProviderState[] {
  return entries.map((entry) => {
    const sandbox = entry.sandbox === true;
    const credentialEnv = sandbox ? null : (entry.credential_env ?? null);
    const credentialSet = sandbox ? null : Boolean(credentialEnv && options.env[credentialEnv]);
    const resolved = enabled.get(entry.id);
    let state: ProviderStateName;
    if (resolved) state = resolved.baseUrl === undefined ? 'no_simulator' : 'enabled';
    else if (sandbox) state = 'sandbox_off';
    else state = credentialSet ? 'credential_invalid' : 'credential_missing';
    return { id: entry.id, protocol: entry.protocol, sandbox, credentialEnv, credentialSet, state };
  });
}
