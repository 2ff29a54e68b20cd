// The direction of imports between the layers under src/, as one small local ESLint rule: every
// relative import (static, type-only, re-export or dynamic) is resolved against the importing file,
// and a file in a zone's target folder may not reach into the zone's forbidden folders.
import path from 'node:path';

/** @type {import('eslint').Rule.RuleModule} */
const layers = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports between the layers under src/ go one way only.' },
    schema: [{ type: 'object', properties: { root: { type: 'string' }, zones: { type: 'array' } }, required: ['root', 'zones'] }],
  },
  create(context) {
    const { root, zones } = context.options[0];
    const src = path.resolve(root, 'src');
    const layerOf = (file) => {
      const relative = path.relative(src, file);
      return relative.startsWith('..') || path.isAbsolute(relative) ? undefined : relative.split(path.sep)[0];
    };
    const from = layerOf(context.filename);
    const applicable = zones.filter((z) => z.target === from);
    if (applicable.length === 0) return {};

    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = layerOf(path.resolve(path.dirname(context.filename), source));
      const zone = applicable.find((z) => z.from.includes(to));
      if (zone) context.report({ node, message: `src/${from} may not import from src/${to}: ${zone.message}` });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export default { rules: { layers } };
