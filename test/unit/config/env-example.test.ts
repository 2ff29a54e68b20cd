// .env.example is what an operator copies for compose: every credential the sample catalogue names
// must have its line there, or a provider stays off with nothing to say why.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ROOT_DIR } from '../../../src/config.ts';
import { ENV_SCHEMA } from '../../../src/config/env.ts';
import type { Catalogue } from '../../../src/catalogue/types.ts';

const example = fs.readFileSync(path.join(ROOT_DIR, '.env.example'), 'utf8');
/** The variables .env.example sets (`NAME=` lines, not comments). */
const listed = new Set([...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));

describe('.env.example', () => {
  it('has a line for every credential variable the sample catalogue names', () => {
    const catalogue = parse(fs.readFileSync(path.join(ROOT_DIR, 'catalogue.sample.yaml'), 'utf8')) as Catalogue;
    const credentials = [...new Set(catalogue.providers.flatMap((p) => (p.credential_env ? [p.credential_env] : [])))];
    expect(credentials.length).to.be.greaterThan(0);
    expect(credentials.filter((name) => !listed.has(name))).to.deep.equal([]);
  });

  it('names only variables the gateway, the catalogue or compose reads', () => {
    const catalogue = parse(fs.readFileSync(path.join(ROOT_DIR, 'catalogue.sample.yaml'), 'utf8')) as Catalogue;
    const known = new Set([
      ...Object.keys(ENV_SCHEMA),
      ...catalogue.providers.flatMap((p) => (p.credential_env ? [p.credential_env] : [])),
      'POSTGRES_PASSWORD', // compose.yaml's own
    ]);
    expect([...listed].filter((name) => !known.has(name))).to.deep.equal([]);
  });
});
