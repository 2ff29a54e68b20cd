// The faces of the wings (issue 34, 3): code outside src/ledger, src/holds and src/providers
// imports each through its one index.ts, which names what the rest of the gateway may use. ESLint
// (scripts/eslint-layers.js, `faces`) refuses a reach past the face; this script is the mechanical
// fix: it rewrites every such import under src/ to the wing's index.ts (merging a file's imports
// of one face into one declaration) and adds to the index each name that was imported past it.
// Run it after merging a branch that reached into a wing: `node scripts/faces.mjs`, then
// `npx prettier --write src` and `npm run typecheck`. `--check` changes nothing and exits 1 when
// something reaches past a face.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const WINGS = ['ledger', 'holds', 'providers'];
const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
const check = process.argv.includes('--check');

const sourceFiles = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
const wingOf = (file) => {
  const [top, ...rest] = path.relative(SRC, file).split(path.sep);
  return rest.length > 0 && WINGS.includes(top) ? top : undefined;
};
const indexOf = (wing) => path.join(SRC, wing, 'index.ts');
const specifier = (from, to) => {
  const relative = path.relative(path.dirname(from), to).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
};

/** Per wing: name -> { file (under the wing), type (true while every use is type-only) }. */
const needed = new Map(WINGS.map((w) => [w, new Map()]));
const need = (wing, name, file, typeOnly) => {
  const names = needed.get(wing);
  const known = names.get(name);
  if (known && known.file !== file)
    console.warn(
      `faces: ${wing} ${name} imported from ${path.relative(ROOT, known.file)} and ${path.relative(ROOT, file)}; the face keeps the first (the same binding re-exported, or typecheck will say)`,
    );
  names.set(name, { file: known?.file ?? file, type: (known?.type ?? true) && typeOnly });
};

/** The existing face: its exports, kept (a name stays on the face once it is there). */
for (const wing of WINGS) {
  const index = indexOf(wing);
  if (!fs.existsSync(index)) continue;
  const sf = ts.createSourceFile(index, fs.readFileSync(index, 'utf8'), ts.ScriptTarget.Latest, true);
  for (const st of sf.statements) {
    if (!ts.isExportDeclaration(st) || !st.moduleSpecifier || !st.exportClause || !ts.isNamedExports(st.exportClause)) continue;
    const file = path.resolve(path.dirname(index), st.moduleSpecifier.text);
    for (const el of st.exportClause.elements) need(wing, el.name.text, file, st.isTypeOnly || el.isTypeOnly);
  }
}

let reached = 0;
for (const file of sourceFiles(SRC)) {
  const own = wingOf(file);
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edits = []; // [start, end, replacement]
  const merged = new Map(); // wing -> { first statement, specifiers }
  for (const st of sf.statements) {
    const isImport = ts.isImportDeclaration(st);
    if (!(isImport || ts.isExportDeclaration(st)) || !st.moduleSpecifier || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    if (!st.moduleSpecifier.text.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), st.moduleSpecifier.text);
    const wing = wingOf(target);
    if (!wing || wing === own || target === indexOf(wing)) continue;
    reached += 1;
    const where = `${path.relative(ROOT, file)}: ${st.getText(sf).replace(/\s+/g, ' ')}`;
    const clause = isImport ? st.importClause : st;
    const bindings = isImport ? clause?.namedBindings : st.exportClause;
    if (!clause || (isImport && clause.name) || !bindings || !(ts.isNamedImports(bindings) || ts.isNamedExports(bindings)))
      throw new Error(`faces: only named imports and exports can go through a face: ${where}`);
    const typeAll = clause.isTypeOnly;
    const specs = bindings.elements.map((el) => {
      const original = (el.propertyName ?? el.name).text;
      need(wing, original, target, typeAll || el.isTypeOnly);
      const alias = el.propertyName ? `${original} as ${el.name.text}` : original;
      return typeAll || el.isTypeOnly ? `type ${alias}` : alias;
    });
    if (check) {
      console.log(`reaches past the ${wing} face: ${where}`);
      continue;
    }
    const face = specifier(file, indexOf(wing));
    if (!isImport) {
      edits.push([st.getStart(sf), st.end, `export { ${specs.join(', ')} } from '${face}';`]);
      continue;
    }
    const entry = merged.get(wing);
    if (entry) {
      entry.specs.push(...specs);
      edits.push([st.getFullStart(), st.end, '']);
    } else merged.set(wing, { st, specs, face });
  }
  if (check) continue;
  // A file's existing import of the face joins the merged one.
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const target = path.resolve(path.dirname(file), st.moduleSpecifier.text);
    const wing = WINGS.find((w) => target === indexOf(w));
    const entry = wing && merged.get(wing);
    const bindings = st.importClause?.namedBindings;
    if (!entry || !bindings || !ts.isNamedImports(bindings)) continue;
    for (const el of bindings.elements) {
      const alias = el.propertyName ? `${el.propertyName.text} as ${el.name.text}` : el.name.text;
      entry.specs.push(st.importClause.isTypeOnly || el.isTypeOnly ? `type ${alias}` : alias);
    }
    edits.push([st.getFullStart(), st.end, '']);
  }
  for (const { st, specs, face } of merged.values()) {
    const unique = [...new Set(specs)].sort((a, b) => a.replace(/^type /, '').localeCompare(b.replace(/^type /, '')));
    const allTypes = unique.every((s) => s.startsWith('type '));
    const list = allTypes ? unique.map((s) => s.slice(5)) : unique;
    edits.push([st.getStart(sf), st.end, `import ${allTypes ? 'type ' : ''}{ ${list.join(', ')} } from '${face}';`]);
  }
  if (edits.length === 0) continue;
  let out = text;
  for (const [start, end, replacement] of edits.sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + replacement + out.slice(end);
  fs.writeFileSync(file, out);
}

if (check) {
  if (reached > 0) process.exit(1);
} else
  for (const wing of WINGS) {
    const byFile = new Map();
    for (const [name, { file, type }] of needed.get(wing)) {
      if (!byFile.has(file)) byFile.set(file, []);
      byFile.get(file).push(type ? `type ${name}` : name);
    }
    const index = indexOf(wing);
    const header = fs.existsSync(index)
      ? fs.readFileSync(index, 'utf8').match(/^(\/\/.*\n)*/)[0]
      : `// The face of src/${wing}: what code outside it may import (scripts/faces.mjs keeps it; ESLint refuses a reach past it).\n`;
    const lines = [...byFile]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([file, names]) =>
          `export { ${names.sort((a, b) => a.replace(/^type /, '').localeCompare(b.replace(/^type /, ''))).join(', ')} } from '${specifier(index, file)}';`,
      );
    fs.writeFileSync(index, `${header}${lines.join('\n')}\n`);
  }
