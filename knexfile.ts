// Used by the knex CLI (`npm run db:migrate`); the gateway migrates itself at start. Without
// DATABASE_URL this starts the embedded database's process, which ends with the CLI.
import path from 'node:path';
import { databaseConfig, pgliteDirFor } from './src/db/knex.ts';

const dataDir = path.resolve(process.env.DATA_DIR || './data');

export default async () => (await databaseConfig({ databaseUrl: process.env.DATABASE_URL, pgliteDir: pgliteDirFor(dataDir) })).config;
