import fs from 'node:fs';
import path from 'node:path';
import { randomBase62 } from '../shared/ids.ts';

/**
 * The operator token: ADMIN_TOKEN when set, else one generated on first start and kept (mode 0600)
 * in DATA_DIR so restarts and `npm run admin` on the same machine agree on it.
 */
export function resolveAdminToken(configured: string | undefined, dataDir: string): { token: string; generated: boolean } {
  if (configured) return { token: configured, generated: false };
  const file = path.join(dataDir, 'admin-token');
  if (fs.existsSync(file)) return { token: fs.readFileSync(file, 'utf8').trim(), generated: false };
  fs.mkdirSync(dataDir, { recursive: true });
  const token = `adm_${randomBase62(40)}`;
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return { token, generated: true };
}

export function readStoredAdminToken(dataDir: string): string | undefined {
  const file = path.join(dataDir, 'admin-token');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined;
}
