import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig, ROOT_DIR } from '../../../src/config.ts';
import { TABLE_END, TABLE_START, renderConfigTable } from '../../../src/config/docs.ts';
import { ENV_SCHEMA } from '../../../src/config/env.ts';
import { describeDatabaseError } from '../../../src/config/preflight.ts';
import { describeStartupError } from '../../../src/config/startup-errors.ts';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration: one schema for every variable', () => {
  it('gives the documented defaults, and an empty value counts as unset', () => {
    const config = loadConfig({ PORT: '', SANDBOX: '', LOG_LEVEL: '' });
    expect(config).to.include({
      port: 8080,
      host: '127.0.0.1',
      sandbox: true,
      logLevel: 'info',
      apiKeyPrefix: 'sk-gw-',
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
    });
    expect(config.cataloguePath).to.equal(path.join(ROOT_DIR, 'catalogue.sample.yaml'));
    expect(config.databaseUrl).to.equal(undefined);
  });

  it('keeps the values it always accepted: flags in any case, 1/0, yes/no, on/off', () => {
    for (const [raw, value] of [
      ['TRUE', true],
      ['1', true],
      ['yes', true],
      ['On', true],
      ['false', false],
      ['0', false],
      ['NO', false],
      ['off', false],
    ] as const) {
      expect(loadConfig({ SANDBOX: raw }).sandbox, raw).to.equal(value);
    }
    expect(loadConfig({ HOST: '0.0.0.0', METRICS_PORT: '9464' })).to.include({ host: '0.0.0.0', metricsPort: 9464, metricsHost: '0.0.0.0' });
    expect(loadConfig({ HOST: '::', METRICS_HOST: 'localhost' })).to.include({ host: '::', metricsHost: 'localhost' });
  });

  it('reads CORS_ORIGINS as none (the default), any origin, or exact origins as browsers send them', () => {
    expect(loadConfig({}).corsOrigins).to.deep.equal(new Set());
    expect(loadConfig({ CORS_ORIGINS: '' }).corsOrigins).to.deep.equal(new Set());
    expect(loadConfig({ CORS_ORIGINS: ' * ' }).corsOrigins).to.equal('*');
    expect(loadConfig({ CORS_ORIGINS: 'None' }).corsOrigins).to.deep.equal(new Set());
    expect(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }).corsOrigins).to.deep.equal(
      new Set(['https://app.example.com', 'http://localhost:5173']),
    );
    for (const bad of ['https://app.example.com/', 'https://App.example.com', 'app.example.com', 'https://app.example.com:443', 'ftp://x.example', ', ,']) {
      expect(problems({ CORS_ORIGINS: bad })[0], bad).to.match(
        /^CORS_ORIGINS must be \*, none, or origins such as https:\/\/app\.example\.com separated by commas/,
      );
    }
  });

  it('names every bad variable on its own line', () => {
    expect(problems({ PORT: 'http', SANDBOX: 'maybe', LOG_LEVEL: 'verbose', BODY_LIMIT_BYTES: '12.5' })).to.deep.equal([
      'PORT must be a whole number from 0 to 65535, got "http"',
      'SANDBOX must be true or false, got "maybe"',
      'BODY_LIMIT_BYTES must be a whole number from 1024 to 536870912, got "12.5"',
      'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "verbose"',
    ]);
    expect(problems({ PORT: '65536' })).to.deep.equal(['PORT must be a whole number from 0 to 65535, got "65536"']);
    expect(problems({ HOST: 'not a host' })).to.deep.equal(['HOST must be an IP address or a host name, got "not a host"']);
    expect(problems({ API_KEY_PREFIX: 'sk gw' })[0]).to.match(/^API_KEY_PREFIX must be 2-16 characters/);
    expect(problems({ METRICS_PORT: '8080' })).to.deep.equal(['METRICS_PORT must differ from PORT (8080)']);
    expect(problems({ HEARTBEAT_MS: '300000' })[0]).to.match(/^STALE_RESERVATION_SECONDS \(600\) must be at least three heartbeats/);
  });

  it('never repeats a secret in its message', () => {
    const [url] = problems({ DATABASE_URL: 'mysql://root:hunter2-secret@db/app' });
    expect(url)
      .to.match(/^DATABASE_URL must be a PostgreSQL URL/)
      .and.not.include('hunter2');
    expect(problems({ DATABASE_URL: 'hunter2-secret' })[0]).to.not.include('hunter2');
    const [token] = problems({ ADMIN_TOKEN: 'short sec' });
    expect(token)
      .to.match(/^ADMIN_TOKEN must be at least 12 characters/)
      .and.not.include('short sec');
    expect(loadConfig({ DATABASE_URL: 'postgresql://u:p@db.internal:5433/gw?sslmode=require' }).databaseUrl).to.include('db.internal');
  });

  it('turns database and listen failures into one line naming the variable, without the password', () => {
    const url = 'postgres://gateway:s3cret-pw@db.example:6543/gw';
    const refused = Object.assign(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })], ''), { code: 'ECONNREFUSED' });
    expect(describeDatabaseError(refused, url)).to.equal('nothing accepts connections at db.example:6543 (connection refused); is PostgreSQL running there?');
    expect(describeDatabaseError(Object.assign(new Error('password authentication failed for user "gateway"'), { code: '28P01' }), url)).to.equal(
      'PostgreSQL at db.example:6543 refused the credentials of user "gateway": password authentication failed for user "gateway"',
    );
    expect(describeDatabaseError(Object.assign(new Error('database "gw" does not exist'), { code: '3D000' }), url)).to.equal(
      'database "gw" does not exist on db.example:6543',
    );
    expect(describeDatabaseError(new Error('Connection terminated due to connection timeout'), url)).to.equal('no answer from db.example:6543 within 10 s');
    for (const code of ['ENOTFOUND', 'EHOSTUNREACH']) expect(describeDatabaseError(Object.assign(new Error(code), { code }), url)).to.not.include('s3cret');

    const config = loadConfig({ PORT: '8080', METRICS_PORT: '9464' });
    const inUse = (port: number) => Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'listen', address: '127.0.0.1', port });
    expect(describeStartupError(inUse(8080), config)).to.deep.equal([
      'PORT: 127.0.0.1:8080 is already in use (EADDRINUSE); stop what holds it or set PORT to a free port',
    ]);
    expect(describeStartupError(inUse(9464), config)[0]).to.match(/^METRICS_PORT: 127\.0\.0\.1:9464 is already in use/);
  });

  it('the configuration table of docs/configuration.md is the schema, rendered (run `npm run docs:config` after changing src/config/env.ts)', () => {
    const readme = fs.readFileSync(path.join(ROOT_DIR, 'docs', 'configuration.md'), 'utf8');
    const section = readme.slice(readme.indexOf(TABLE_START) + TABLE_START.length, readme.indexOf(TABLE_END)).trim();
    expect(section).to.equal(renderConfigTable());
    for (const name of Object.keys(ENV_SCHEMA)) expect(section).to.include(`| \`${name}\` |`);
  });

  it('no module under src/ reads a setting from process.env outside the schema', () => {
    // Provider credentials are read by name from the catalogue (src/providers/registry.ts gets env).
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts') && /process\.env\.[A-Z_]+/.test(fs.readFileSync(file, 'utf8'))) offenders.push(path.relative(ROOT_DIR, file));
      }
    };
    walk(path.join(ROOT_DIR, 'src'));
    expect(offenders).to.deep.equal([]);
  });
});
