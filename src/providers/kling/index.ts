// Kling (official API) video tasks: the adapter (adapter.ts), its JWT (auth.ts), its error map
// (errors.ts), and its defaults. The credential variable holds `ACCESS_KEY:SECRET_KEY`.
import type { ProtocolModule } from '../protocol.ts';
import { TASK_TIMEOUTS } from '../timeouts.ts';
import { klingAdapter } from './adapter.ts';
import { parseKlingCredential } from './auth.ts';

export const klingProtocol: ProtocolModule = {
  timeouts: TASK_TIMEOUTS,
  video: klingAdapter,
  credentialProblem: (value) => {
    const keys = parseKlingCredential(value);
    return typeof keys === 'string' ? keys : undefined;
  },
};
