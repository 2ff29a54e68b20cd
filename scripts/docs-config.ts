// npm run docs:config: rewrites the configuration table of docs/configuration.md from src/config/env.ts.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../src/config.ts';
import { withConfigTable } from '../src/config/docs.ts';

const file = path.join(ROOT_DIR, 'docs', 'configuration.md');
const before = fs.readFileSync(file, 'utf8');
const after = withConfigTable(before);
fs.writeFileSync(file, after);
process.stdout.write(
  after === before ? 'docs/configuration.md: configuration table already up to date\n' : 'docs/configuration.md: configuration table rewritten\n',
);
