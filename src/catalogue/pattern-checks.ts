// Load-time checks of models' name patterns (names.ts resolves them). Two distinct patterns of
// different models with as many literal characters as each other that could both match one name
// would leave that name's model to file order: refused, naming both lines. An identical pattern
// on several models is a shared name, like a shared alias (a real model and its sandbox stand-in).
import { isNode, type Document, type LineCounter } from 'yaml';
import { globsOverlap, specificity } from '../shared/glob.ts';
import type { Catalogue } from './types.ts';

interface Placed {
  pattern: string;
  model: number;
  index: number;
}

export function patternErrors(catalogue: Catalogue, document: Document, lines: LineCounter): string[] {
  const errors: string[] = [];
  const placed: Placed[] = catalogue.models.flatMap((model, m) => (model.patterns ?? []).map((pattern, index) => ({ pattern, model: m, index })));
  const where = (p: Placed) => {
    const node = document.getIn(['models', p.model, 'patterns', p.index], true);
    const at = isNode(node) && node.range ? `line ${lines.linePos(node.range[0]).line}: ` : '';
    return `${at}models.${p.model} (${catalogue.models[p.model]!.id}).patterns.${p.index}`;
  };
  for (const [i, a] of placed.entries()) {
    for (const b of placed.slice(i + 1)) {
      if (a.model === b.model || a.pattern === b.pattern) continue;
      if (specificity(a.pattern) !== specificity(b.pattern) || !globsOverlap(a.pattern, b.pattern)) continue;
      errors.push(
        `${where(b)}: "${b.pattern}" and "${a.pattern}" (${where(a)}) could both match one name with as many literal characters each; make one more specific`,
      );
    }
  }
  return errors;
}
