import { expect } from 'chai';
import fc from 'fast-check';
import { compileGlob, globsOverlap, isGlob, mostSpecific, specificity } from '../../../src/shared/glob.ts';

describe('glob patterns', () => {
  it('matches `*` as any run of characters and `?` as one, everything else literally and case-sensitively', () => {
    const opus = compileGlob('claude-opus-*');
    expect(['claude-opus-5-5', 'claude-opus-4-8', 'claude-opus-', 'claude-opus-4-8[1m]'].every((n) => opus.matches(n))).to.equal(true);
    expect(['claude-opus', 'Claude-opus-5', 'xclaude-opus-5', 'claude-sonnet-5'].some((n) => opus.matches(n))).to.equal(false);
    expect(compileGlob('gpt-5?').matches('gpt-5x')).to.equal(true);
    expect(compileGlob('gpt-5?').matches('gpt-5')).to.equal(false);
    // Regular-expression characters and brackets are literal.
    expect(compileGlob('a.b[1m]*').matches('a.b[1m]-x')).to.equal(true);
    expect(compileGlob('a.b*').matches('axb')).to.equal(false);
    expect(compileGlob('a*').matches('a\nb')).to.equal(true);
    expect(isGlob('claude-opus-5')).to.equal(false);
    expect(isGlob('gpt-5?')).to.equal(true);
  });

  it('ranks by literal characters: the most specific pattern that matches wins', () => {
    expect(specificity('claude-opus-*')).to.equal(12);
    expect(specificity('claude-*')).to.equal(7);
    expect(specificity('*')).to.equal(0);
    const entries = ['claude-*', 'claude-opus-*', 'claude-3*-opus-*', '*'].map((p) => ({ glob: compileGlob(p) }));
    expect(mostSpecific(entries, 'claude-opus-4-8')?.glob.pattern).to.equal('claude-opus-*');
    expect(mostSpecific(entries, 'claude-3-opus-20240229')?.glob.pattern).to.equal('claude-3*-opus-*');
    expect(mostSpecific(entries, 'claude-mythos-6')?.glob.pattern).to.equal('claude-*');
    expect(mostSpecific(entries, 'gpt-5')?.glob.pattern).to.equal('*');
    expect(mostSpecific(entries.slice(0, 3), 'gpt-5')).to.equal(undefined);
  });

  it('tells whether two patterns can match one name', () => {
    expect(globsOverlap('claude-*', 'claude-opus-*')).to.equal(true);
    expect(globsOverlap('claude-opus-*', 'claude-sonnet-*')).to.equal(false);
    expect(globsOverlap('*-opus', 'claude-*')).to.equal(true); // claude-opus
    expect(globsOverlap('a?c', 'ab*')).to.equal(true);
    expect(globsOverlap('a?', 'abc*')).to.equal(false);
    expect(globsOverlap('gpt-5*', 'gpt-4*')).to.equal(false);
  });

  it('decides overlap exactly as a search over every short name does (property)', () => {
    const alphabet = ['a', 'b'];
    const names: string[] = [''];
    for (let length = 1; length <= 7; length++)
      for (const prefix of names.filter((n) => n.length === length - 1)) for (const c of alphabet) names.push(prefix + c);
    const pattern = fc.array(fc.constantFrom('a', 'b', '*', '?'), { maxLength: 3 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(pattern, pattern, (a, b) => {
        const [ga, gb] = [compileGlob(a), compileGlob(b)];
        const witnessed = names.some((n) => ga.matches(n) && gb.matches(n));
        expect(globsOverlap(a, b), `${a} ~ ${b}`).to.equal(witnessed);
      }),
      { numRuns: 400 },
    );
  });
});
