// The layer zones of eslint.config.js, as `npm run lint` applies them: an import across a zone's
// line is reported (so each rule fails the lint if it is broken again), and the imports the layers
// allow are not.
import path from 'node:path';
import { expect } from 'chai';
import { Linter, type ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { ROOT_DIR } from '../../../src/config.ts';

type RuleEntry = ['error', { root: string; zones: unknown[] }];

async function layersRule(): Promise<RuleEntry> {
  const { default: config } = (await import(path.join(ROOT_DIR, 'eslint.config.js'))) as { default: Array<{ rules?: Record<string, unknown> }> };
  const entry = config.find((c) => c.rules?.['local/layers'])?.rules?.['local/layers'];
  if (!entry) throw new Error('eslint.config.js has no local/layers rule');
  return entry as RuleEntry;
}

/** What the layers rule says of a file under src/ with the given imports (the type-aware rules aside). */
async function reported(file: string, ...imports: string[]): Promise<string[]> {
  const { default: local } = (await import(path.join(ROOT_DIR, 'scripts/eslint-layers.js'))) as { default: ESLint.Plugin };
  const source = imports.map((from, i) => `import type { X${i} } from '${from}';\nexport type Y${i} = X${i};`).join('\n');
  const messages = new Linter({ configType: 'flat' }).verify(
    source,
    [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { local }, rules: { 'local/layers': await layersRule() } }],
    path.join(ROOT_DIR, file),
  );
  return messages.map((m) => m.message);
}

/** Each import, alone in its file, is reported once (with its message, where one is given). */
async function eachRefused(imports: Array<[file: string, from: string, message?: RegExp]>): Promise<void> {
  for (const [file, from, message] of imports) {
    const messages = await reported(file, from);
    expect(messages, `${file} -> ${from}`).to.have.length(1);
    if (message) expect(messages[0], `${file} -> ${from}`).to.match(message);
  }
}

describe('eslint layer zones', () => {
  it('src/tasks imports no product folder, nor the HTTP layer', async () => {
    expect(await reported('src/tasks/worker.ts', '../domain/videos/kind.ts')).to.have.length(1);
    expect((await reported('src/tasks/submit.ts', '../domain/responses/kind.ts'))[0]).to.match(/^src\/tasks may not import from src\/domain: /);
    expect(await reported('src/tasks/outcome.ts', '../http/errors.ts')).to.have.length(1);
    expect(await reported('src/tasks/outcome.ts', '../ledger/index.ts', '../providers/index.ts', './model.ts')).to.deep.equal([]);
  });

  it('the video and the response kinds do not import each other; both may use the engine', async () => {
    expect((await reported('src/domain/videos/kind.ts', '../responses/kind.ts'))[0]).to.match(
      /^src\/domain\/videos may not import from src\/domain\/responses: /,
    );
    expect((await reported('src/domain/responses/background.ts', '../videos/model.ts'))[0]).to.match(
      /^src\/domain\/responses may not import from src\/domain\/videos: /,
    );
    expect(await reported('src/domain/videos/service.ts', '../../tasks/accept.ts', '../failure.ts', '../discovery/service.ts')).to.deep.equal([]);
    expect(await reported('src/domain/billing/receipts.ts', '../videos/kind.ts')).to.deep.equal([]); // other products may read the video rows' shape
  });

  it('metrics import no domain or engine code: what they read is handed to them', async () => {
    expect((await reported('src/metrics/database.ts', '../domain/videos/queue.ts'))[0]).to.match(/^src\/metrics may not import from src\/domain: /);
    expect(await reported('src/metrics/database.ts', '../tasks/gauges.ts')).to.have.length(1);
    expect(await reported('src/metrics/database.ts', '../logger.ts', './hooks.ts')).to.deep.equal([]);
  });

  it('fails on each of the six imports issue 34 found across a layer', async () => {
    await eachRefused([
      ['src/http/errors.ts', '../providers/anthropic/wire.ts', /^src\/http may not import from src\/providers: /],
      ['src/http/steps/error-handler.ts', '../../db/unavailable.ts', /^src\/http may not import from src\/db: /],
      ['src/http/serialize/ledger.ts', '../../holds/delivered.ts', /^src\/http may not import from src\/holds: /],
      ['src/customers/limits.ts', '../ledger/context.ts', /^src\/customers may not import from src\/ledger: /],
      ['src/metrics/database.ts', '../domain/videos/service.ts', /^src\/metrics may not import from src\/domain: /],
      ['src/sandbox/anthropic/server.ts', '../../providers/anthropic/wire.ts', /^src\/sandbox may not import from src\/providers: /],
    ]);
  });

  it('the HTTP layer reaches services, its own steps and the shared helpers; never an upstream, SQL, a hold or a job', async () => {
    expect(await reported('src/http/handlers/wallet_get.ts', '../../domain/failure.ts', '../serialize/account.ts', '../../shared/money.ts')).to.deep.equal([]);
    expect(await reported('src/http/app.ts', './steps/dispatch.ts', '../customers/service.ts', '../metrics/hooks.ts')).to.deep.equal([]);
    for (const from of ['../jobs/cron.ts', '../sandbox/index.ts', '../providers/call.ts', '../holds/holds.ts'])
      expect(await reported('src/http/server.ts', from), from).to.have.length(1);
  });

  it('metrics, jobs and the simulators are leaves: no feature of the gateway; request logs reach only the database', async () => {
    await eachRefused([
      ['src/metrics/registry.ts', '../ledger/service.ts'],
      ['src/metrics/registry.ts', '../providers/call.ts'],
      ['src/jobs/cron.ts', '../holds/sweeper.ts'],
      ['src/jobs/cron.ts', '../tasks/worker.ts'],
      ['src/sandbox/json-server.ts', '../ledger/service.ts'],
      ['src/sandbox/openai-chat/server.ts', '../../http/errors.ts'],
      ['src/logs/request-logs.ts', '../domain/sink.ts'],
      ['src/logs/log-row.ts', '../ledger/service.ts'],
    ]);
    expect(await reported('src/metrics/registry.ts', '../logger.ts', '../config.ts', '../shared/bounded-server.ts')).to.deep.equal([]);
    expect(await reported('src/jobs/cron.ts', '../logger.ts')).to.deep.equal([]);
    expect(await reported('src/sandbox/index.ts', '../catalogue/types.ts', '../shared/anthropic-errors.ts')).to.deep.equal([]);
    expect(await reported('src/logs/request-logs.ts', '../db/unavailable.ts', '../logger.ts')).to.deep.equal([]);
  });

  it('the ledger, the holds and the providers are reached through their index.ts only; inside a wing its files import each other', async () => {
    const face = /^src\/(ledger|holds|providers) is imported through its face, src\/\1\/index\.ts, not src\//;
    await eachRefused([
      ['src/domain/account/service.ts', '../../ledger/free-quota.ts', face],
      ['src/holds/grant-flusher.ts', '../ledger/grant-statements.ts', face],
      ['src/services.ts', './holds/settler.ts', face],
      ['src/domain/messages/service.ts', '../../providers/anthropic/wire.ts', face],
      ['src/tasks/submit.ts', '../providers/types.ts', face],
    ]);
    expect(await reported('src/domain/account/service.ts', '../../ledger/index.ts', '../../holds/index.ts', '../../providers/index.ts')).to.deep.equal([]);
    expect(await reported('src/ledger/service.ts', './free-quota.ts', './grant-statements.ts')).to.deep.equal([]);
    expect(await reported('src/providers/openai-chat/index.ts', '../call.ts', './wire.ts', '../../catalogue/types.ts')).to.deep.equal([]);
  });

  it('the layers below the engine do not import it', async () => {
    for (const file of ['src/ledger/resolve.ts', 'src/providers/http.ts', 'src/catalogue/store.ts', 'src/db/knex.ts', 'src/shared/ids.ts'])
      expect(await reported(file, `${path.posix.relative(path.posix.dirname(file), 'src/tasks/model.ts')}`), file).to.have.length(1);
  });
});
