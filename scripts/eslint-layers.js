// The direction of imports between the layers under src/, as one small local ESLint rule: every
// relative import (static, type-only, re-export or dynamic) is resolved against the importing file,
// and a file in a zone's target folder may not reach into the zone's forbidden folders. Folders are
// paths under src/: a layer (`domain`) or a folder within one (`domain/videos`).
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
    /** The file's path under src/ with `/` separators; undefined outside src/. */
    const underSrc = (file) => {
      const relative = path.relative(src, file);
      return relative.startsWith('..') || path.isAbsolute(relative) ? undefined : relative.split(path.sep).join('/');
    };
    const within = (file, folder) => file.startsWith(`${folder}/`);
    const from = underSrc(context.filename);
    const applicable = from === undefined ? [] : zones.filter((z) => within(from, z.target));
    if (applicable.length === 0) return {};

    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = underSrc(path.resolve(path.dirname(context.filename), source));
      if (to === undefined) return;
      for (const zone of applicable) {
        const forbidden = zone.from.find((folder) => within(to, folder));
        if (forbidden) return context.report({ node, message: `src/${zone.target} may not import from src/${forbidden}: ${zone.message}` });
      }
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
