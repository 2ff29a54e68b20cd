import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';

/** The imports of the TypeScript files under `dir` as [file, target] (run-time ones only unless `types`). */
function imports(dir: string, types = false): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const entry of fs.readdirSync(path.join(ROOT_DIR, dir), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)) {
      if (match[1] && !types) continue;
      const target = match[2]!.startsWith('.') ? path.relative(ROOT_DIR, path.resolve(path.dirname(file), match[2]!)) : match[2]!;
      found.push([path.relative(ROOT_DIR, file), target]);
    }
  }
  return found;
}

describe('layers: who may import what at run time', () => {
  it('providers never import the domain or the HTTP layer, not even its types', () => {
    const all = [...imports('src/providers', true), ...imports('src/sandbox', true)];
    expect(all.filter(([, target]) => target.startsWith('src/domain') || target.startsWith('src/http'))).to.deep.equal([]);
  });

  it('the domain never imports the HTTP layer or node:http', () => {
    expect(imports('src/domain').filter(([, target]) => target.startsWith('src/http') || /^node:https?$/.test(target))).to.deep.equal([]);
  });

  it('the catalogue loads no provider code (the store is given the provider resolver)', () => {
    expect(imports('src/catalogue').filter(([, target]) => target.startsWith('src/providers'))).to.deep.equal([]);
  });
});
