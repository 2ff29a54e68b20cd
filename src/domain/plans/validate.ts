// What a plan's or a customer's pricing needs beyond the contract's schema, checked when an
// operator writes it: multipliers above zero, one price or one multiplier per override, no model
// named twice, no two patterns that could both decide one name at equal specificity (the catalogue's
// rule for its own patterns), exact ids the catalogue knows, and for every catalogue model an
// override names: a price of its kind that can be charged (tiers as the catalogue checks them).
import type { ResolvedModel } from '../../catalogue/store.ts';
import { tierProblems } from '../../catalogue/tier-checks.ts';
import { isVideoPrice } from '../../catalogue/types.ts';
import { applyOverride, type PriceOverride } from '../../pricing/plans.ts';
import { compileGlob, globsOverlap, isGlob, specificity } from '../../shared/glob.ts';
import { DecimalError, parseMicros } from '../../shared/money.ts';

/** A multiplier may scale prices up to a thousand times, or down to a millionth. */
const MAX_MULTIPLIER = 1_000_000_000n;

export function multiplierProblem(value: string, where: string): string | undefined {
  try {
    const micros = parseMicros(value);
    if (micros === 0n) return `${where}: a multiplier must be above 0`;
    if (micros > MAX_MULTIPLIER) return `${where}: a multiplier may be at most 1000`;
    return undefined;
  } catch (error) {
    if (error instanceof DecimalError) return `${where}: "${value}" is not a decimal with at most 6 decimals`;
    throw error;
  }
}

export function overrideProblems(overrides: readonly PriceOverride[], models: ReadonlyMap<string, ResolvedModel>, patternsAllowed: boolean): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  overrides.forEach((override, i) => {
    const where = `overrides.${i} (${override.model})`;
    if (seen.has(override.model)) problems.push(`${where}: the model is named twice`);
    seen.add(override.model);
    if ((override.price === undefined) === (override.multiplier === undefined)) problems.push(`${where}: give either price or multiplier`);
    if (override.multiplier !== undefined) {
      const problem = multiplierProblem(override.multiplier, `${where}.multiplier`);
      if (problem) problems.push(problem);
    }
    if (override.price && override.price.per_second !== undefined && Object.keys(override.price).length > 1)
      problems.push(`${where}.price: per_second (a video price) cannot stand beside token prices`);
    if (isGlob(override.model)) {
      if (!patternsAllowed) problems.push(`${where}: a customer's override names one model by its id (patterns are for plans)`);
      else problems.push(...patternClashes(overrides, i));
      const glob = compileGlob(override.model);
      for (const model of models.values()) if (glob.matches(model.id)) problems.push(...priceProblems(override, model, where, false));
      return;
    }
    const model = models.get(override.model);
    if (!model) return problems.push(`${where}: no model with this id in the catalogue`);
    problems.push(...priceProblems(override, model, where, true));
  });
  return problems;
}

/** Patterns after `i` that could decide a name together with it at equal specificity. */
function patternClashes(overrides: readonly PriceOverride[], i: number): string[] {
  const pattern = overrides[i]!.model;
  return overrides
    .slice(i + 1)
    .filter((o) => isGlob(o.model) && o.model !== pattern && specificity(o.model) === specificity(pattern) && globsOverlap(o.model, pattern))
    .map((o) => `overrides.${i} (${pattern}): overlaps "${o.model}" at equal specificity, so neither would decide a name both match; make one more specific`);
}

/** What `override` makes of the model's list price, if it cannot be charged. */
function priceProblems(override: PriceOverride, model: ResolvedModel, where: string, exact: boolean): string[] {
  if (model.retired) return [];
  const price = applyOverride(model.price, override);
  if (!price) {
    // A pattern's price of the other kind leaves such models to the plan's next rule.
    return exact
      ? [`${where}.price: ${model.id} is a ${model.group} model, priced ${isVideoPrice(model.price) ? 'per second (per_second)' : 'per token'}`]
      : [];
  }
  const problems: string[] = [];
  const perSecond = override.price?.per_second;
  if (exact && perSecond && isVideoPrice(model.price)) {
    const unknown = Object.keys(perSecond).filter((tier) => !(tier in (model.price as { per_second: object }).per_second));
    if (unknown.length > 0) problems.push(`${where}.price.per_second: ${model.id} has no tier ${unknown.join(', ')}`);
  }
  for (const problem of tierProblems({ ...model, routes: [], price }, '')) problems.push(`${where} for ${model.id}: ${problem.replace(/^\.price\./, '')}`);
  return problems;
}
