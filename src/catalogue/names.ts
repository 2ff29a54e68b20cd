// Which model a name a client sends stands for. Precedence: a model's exact id, then an exact
// alias, then the most specific pattern (most literal characters, src/shared/glob.ts); a name that
// ends in a bracketed variant such as `[1m]` and matches nothing as sent is tried without it.
// Several models may share an alias or a pattern (a real model and its sandbox stand-in): the
// first in the file that an enabled provider serves answers it; patterns of a model nothing serves
// (or retired) match nothing. Distinct patterns of equal specificity that could match one name are
// refused when the file loads (pattern-checks.ts).
import { compileGlob, mostSpecific, type Glob } from '../shared/glob.ts';
import type { ResolvedModel } from './store.ts';
import { aliasName } from './types.ts';

/** How a name reached its model: `alias` and `pattern` are substitutions the gateway made. */
export type NamedVia = 'id' | 'alias' | 'pattern';

export interface NamedModel {
  model: ResolvedModel;
  via: NamedVia;
}

export interface NameIndex {
  resolve(name: string): NamedModel | undefined;
  /** Aliases the operator lists in /v1/models, with the model each answers for. */
  listedAliases: ReadonlyArray<{ alias: string; model: ResolvedModel }>;
  /** Every alias and the model that answers it now. */
  aliases: ReadonlyMap<string, ResolvedModel>;
  /** Every pattern that takes names now, and its model. */
  patterns: ReadonlyMap<string, ResolvedModel>;
}

/** A trailing variant marker as Claude Code shows model names (`claude-opus-4-8[1m]`). */
const VARIANT_SUFFIX = /\[[A-Za-z0-9._-]{1,16}\]$/;
/** Names resolved by pattern are remembered, up to this many (names are the clients' to choose). */
const MEMO_LIMIT = 1000;

/** Which of the models sharing a name answers it: one that serves now, then one that is not retired. */
const rank = (model: ResolvedModel) => (model.retired ? 0 : model.routes.length > 0 ? 2 : 1);

export function buildNameIndex(models: ReadonlyMap<string, ResolvedModel>): NameIndex {
  const aliases = new Map<string, ResolvedModel>();
  const listed = new Set<string>();
  const byPattern = new Map<string, ResolvedModel>();
  for (const model of models.values()) {
    for (const alias of model.aliases ?? []) {
      const name = aliasName(alias);
      const current = aliases.get(name);
      if (!current || rank(model) > rank(current)) aliases.set(name, model);
      if (typeof alias === 'object' && alias.listed) listed.add(`${name} ${model.id}`);
    }
    // A model nothing serves now (its provider disabled) or retired takes no new names by
    // pattern: a less specific pattern of a model that serves answers them instead.
    if (rank(model) < 2) continue;
    for (const pattern of model.patterns ?? []) if (!byPattern.has(pattern)) byPattern.set(pattern, model);
  }
  const patterns: Array<{ glob: Glob; model: ResolvedModel }> = [...byPattern].map(([pattern, model]) => ({ glob: compileGlob(pattern), model }));
  const memo = new Map<string, NamedModel | null>();

  function exact(name: string): NamedModel | undefined {
    const model = models.get(name);
    if (model) return { model, via: 'id' };
    const aliased = aliases.get(name);
    return aliased ? { model: aliased, via: 'alias' } : undefined;
  }

  function byGlob(name: string): NamedModel | undefined {
    if (patterns.length === 0) return undefined;
    const known = memo.get(name);
    if (known !== undefined) return known ?? undefined;
    const best = mostSpecific(patterns, name);
    const found: NamedModel | null = best ? { model: best.model, via: 'pattern' } : null;
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(name, found);
    return found ?? undefined;
  }

  return {
    resolve(name) {
      const found = exact(name);
      if (found) return found;
      // A variant marker names the model without it (the client would send the plain id): the
      // plain name's id, alias or pattern first, then patterns on the name as sent.
      if (VARIANT_SUFFIX.test(name)) {
        const base = name.replace(VARIANT_SUFFIX, '');
        const named = exact(base) ?? byGlob(base);
        // The id with a marker is still a substitution: the client did not name the id as it is.
        if (named) return named.via === 'id' ? { ...named, via: 'alias' } : named;
      }
      return byGlob(name);
    },
    listedAliases: [...aliases].filter(([name, model]) => listed.has(`${name} ${model.id}`)).map(([alias, model]) => ({ alias, model })),
    aliases,
    patterns: byPattern,
  };
}
