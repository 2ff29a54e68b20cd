// The typed request context (src/http/handler.ts): a handler's caller is a Caller wherever the
// contract requires a key, so the list of operations that may be called without one must be the
// contract's; and no handler reads its caller, path or query parameters past their types.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT_DIR } from '../../../src/config.ts';
import { KEY_OPTIONAL_OPERATIONS } from '../../../src/http/handler.ts';
import { loadSpec } from '../../../src/http/spec.ts';

describe('the typed request context of the handlers', () => {
  it('types the caller as present on exactly the public operations whose security requires a key', async () => {
    const spec = await loadSpec(path.join(ROOT_DIR, 'generated/openapi.json'));
    const keyOptional = spec.operations.filter((op) => op.anonymousAllowed).map((op) => op.operationId);
    expect([...KEY_OPTIONAL_OPERATIONS]).to.have.members(keyOptional);
    expect(keyOptional).to.have.length(KEY_OPTIONAL_OPERATIONS.length);
  });

  it('leaves no non-null assertion or cast on ctx.caller, ctx.params or ctx.query in a handler', () => {
    const dir = path.join(ROOT_DIR, 'src/http/handlers');
    const loose = /ctx\.(caller|params|query)\b(\.\w+)?(!|\s+as\s)|\(ctx\.(caller|params|query)[^)]*\)\s+as\s|ctx\.params\.\w+ \?\? ''/;
    const found = fs
      .readdirSync(dir)
      .flatMap((file) =>
        fs
          .readFileSync(path.join(dir, file), 'utf8')
          .split('\n')
          .map((line, i) => [`${file}:${i + 1}`, line] as const),
      )
      .filter(([, line]) => loose.test(line))
      .map(([where, line]) => `${where} ${line.trim()}`);
    expect(found).to.deep.equal([]);
  });
});
