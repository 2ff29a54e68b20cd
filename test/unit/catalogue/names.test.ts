import fs from 'node:fs';
import { expect } from 'chai';
import { parseCatalogue } from '../../../src/catalogue/load.ts';
import { buildNameIndex } from '../../../src/catalogue/names.ts';
import type { ResolvedModel } from '../../../src/catalogue/store.ts';
import { SAMPLE_CATALOGUE } from '../../helpers/gateway.ts';

/** A model as the store resolves it: `serving` says whether an enabled provider serves it. */
const model = (id: string, extra: Partial<ResolvedModel> & { serving?: boolean } = {}): ResolvedModel => {
  const { serving = true, ...rest } = extra;
  return {
    id,
    group: 'messages',
    public: true,
    price: { input_per_mtok: '1', output_per_mtok: '1' },
    priceVersion: { id: 1n, version: 1 },
    routes: serving ? [{ provider: { id: 'p' }, upstreamModel: id, priority: 1 } as never] : [],
    ...rest,
  } as ResolvedModel;
};
const index = (...models: ResolvedModel[]) => buildNameIndex(new Map(models.map((m) => [m.id, m])));

describe('model names: ids, aliases, patterns', () => {
  it('resolves an exact id, then an exact alias, then the most specific pattern', () => {
    const names = index(
      model('x/opus', { aliases: ['claude-opus-5-5'], patterns: ['claude-opus-*'] }),
      model('x/sonnet', { patterns: ['claude-*'] }),
      model('claude-opus-4-8/pinned', { aliases: ['claude-opus-4-8'] }),
    );
    expect(names.resolve('x/opus')).to.deep.include({ via: 'id' });
    expect(names.resolve('claude-opus-5-5')?.model.id).to.equal('x/opus');
    expect(names.resolve('claude-opus-5-5')?.via).to.equal('alias');
    // An alias beats a pattern that also matches it.
    expect(names.resolve('claude-opus-4-8')?.model.id).to.equal('claude-opus-4-8/pinned');
    expect(names.resolve('claude-opus-4-9')).to.deep.include({ via: 'pattern' });
    expect(names.resolve('claude-opus-4-9')?.model.id).to.equal('x/opus');
    expect(names.resolve('claude-mythos-6')?.model.id).to.equal('x/sonnet');
    expect(names.resolve('gpt-5')).to.equal(undefined);
  });

  it('tries a name with a bracketed variant ([1m]) without it, as a substitution', () => {
    const names = index(model('x/opus', { aliases: ['claude-opus-5-5'], patterns: ['claude-opus-*'] }), model('x/sonnet'));
    expect(names.resolve('claude-opus-5-5[1m]')).to.deep.include({ via: 'alias' });
    expect(names.resolve('claude-opus-4-8[1m]')?.model.id).to.equal('x/opus');
    expect(names.resolve('x/sonnet[1m]')).to.deep.include({ via: 'alias' });
    expect(names.resolve('x/sonnet[1m]')?.model.id).to.equal('x/sonnet');
    expect(names.resolve('x/haiku[1m]')).to.equal(undefined);
  });

  it('gives a shared pattern to the first model that serves; a model nothing serves or retired takes no name by pattern', () => {
    const names = index(
      model('real/opus', { patterns: ['claude-opus-*'], serving: false }),
      model('sandbox/opus', { patterns: ['claude-opus-*'] }),
      model('real/haiku', { patterns: ['claude-haiku-4-*'], serving: false }),
      model('old/haiku', { patterns: ['claude-haiku-3-*'], retired: { date: '2026-01-01' } }),
      model('sandbox/haiku', { patterns: ['claude-haiku-*'] }),
    );
    expect(names.resolve('claude-opus-9')?.model.id).to.equal('sandbox/opus');
    expect(names.resolve('claude-haiku-4-5')?.model.id).to.equal('sandbox/haiku');
    expect(names.resolve('claude-haiku-3-5')?.model.id).to.equal('sandbox/haiku');
    const both = index(model('real/opus', { patterns: ['claude-opus-*'] }), model('sandbox/opus', { patterns: ['claude-opus-*'] }));
    expect(both.resolve('claude-opus-9')?.model.id).to.equal('real/opus');
  });

  it('refuses, at load, distinct patterns of two models with as many literal characters that could match one name, naming both lines', () => {
    const sample = fs.readFileSync(SAMPLE_CATALOGUE, 'utf8');
    // claude-opus-? has as many literal characters as claude-opus-* (12), and both match claude-opus-5.
    const haiku = 'aliases: [claude-haiku-4-5, claude-haiku-4-5-20251001, claude-haiku-5-5]\n    patterns: [claude-haiku-*, claude-3*-haiku-*]';
    const clash = sample.replace(haiku, haiku.replace('claude-3*-haiku-*]', 'claude-3*-haiku-*, claude-opus-?]'));
    expect(clash).to.not.equal(sample);
    const result = parseCatalogue(clash, 'c.yaml');
    expect(result.ok).to.equal(false);
    const errors = result.ok ? '' : result.errors.join('\n');
    const line = clash.split('\n').findIndex((l) => l.includes('claude-opus-?]')) + 1;
    expect(errors, errors).to.include(`line ${line}: models.`);
    expect(errors).to.include('(sandbox/claude-haiku).patterns.2: "claude-opus-?" and "claude-opus-*"');
    // Both models that carry claude-opus-* (the real one and its stand-in) are named.
    expect(errors).to.include('(anthropic/claude-opus-5-5).patterns.0').and.include('(sandbox/claude-opus).patterns.0');
  });

  it('accepts the sample catalogue, whose real models and sandbox stand-ins share their patterns', () => {
    const result = parseCatalogue(fs.readFileSync(SAMPLE_CATALOGUE, 'utf8'), 'sample');
    expect(result.ok, result.ok ? '' : result.errors.join('\n')).to.equal(true);
  });

  it('refuses a pattern with no wildcard (that is an alias)', () => {
    const sample = fs.readFileSync(SAMPLE_CATALOGUE, 'utf8');
    const result = parseCatalogue(
      sample.replace('patterns: [gpt-5*, codex-*]\n    group: responses', 'patterns: [gpt-5, codex-*]\n    group: responses'),
      'c.yaml',
    );
    expect(result.ok).to.equal(false);
  });
});
