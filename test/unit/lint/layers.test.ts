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

describe('eslint layer zones', () => {
  it('src/tasks imports no product folder, nor the HTTP layer', async () => {
    expect(await reported('src/tasks/worker.ts', '../domain/videos/kind.ts')).to.have.length(1);
    expect((await reported('src/tasks/submit.ts', '../domain/responses/kind.ts'))[0]).to.match(/^src\/tasks may not import from src\/domain: /);
    expect(await reported('src/tasks/outcome.ts', '../http/errors.ts')).to.have.length(1);
    expect(await reported('src/tasks/outcome.ts', '../ledger/service.ts', '../providers/types.ts', './model.ts')).to.deep.equal([]);
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

  it('the layers below the engine do not import it', async () => {
    for (const file of ['src/ledger/resolve.ts', 'src/providers/http.ts', 'src/catalogue/store.ts', 'src/db/knex.ts', 'src/shared/ids.ts'])
      expect(await reported(file, `${path.posix.relative(path.posix.dirname(file), 'src/tasks/model.ts')}`), file).to.have.length(1);
  });
});
