// Used by the knex CLI (`npm run db:migrate`); the gateway migrates itself at start.
import path from 'node:path';
import { knexConfig, pgliteDirFor } from './src/db/knex.ts';

const dataDir = path.resolve(process.env.DATA_DIR || './data');

export default knexConfig({ databaseUrl: process.env.DATABASE_URL, pgliteDir: pgliteDirFor(dataDir) });
