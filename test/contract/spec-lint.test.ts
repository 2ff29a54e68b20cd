import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ROOT_DIR } from '../../src/config.ts';

const run = promisify(execFile);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Json = Record<string, any>;
interface Operation {
  where: string;
  file: string;
  op: Json;
}

function bundle(name: string): Json {
  return JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'generated', name), 'utf8'));
}

/** Follows one local `$ref` (the bundles keep shared components as `#/components/...` refs). */
function deref(node: any, doc: Json): any {
  while (node && typeof node === 'object' && typeof node.$ref === 'string') {
    node = node.$ref
      .slice(2)
      .split('/')
      .reduce((at: any, key: string) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return node;
}

function operations(doc: Json, file: string): Operation[] {
  return Object.entries(doc.paths as Json).flatMap(([p, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ where: `${file} ${m.toUpperCase()} ${p}`, file, op: item[m] as Json })),
  );
}

const hasExample = (media: Json) => media.example !== undefined || Object.keys(media.examples ?? {}).length > 0;

describe('contract: openapi/ lints and every operation is mockable', function () {
  this.timeout(30_000);
  const docs = { 'openapi.json': bundle('openapi.json'), 'admin.json': bundle('admin.json') };
  const all = Object.entries(docs).flatMap(([file, doc]) => operations(doc, file));

  it('redocly lint passes both roots with no error', async () => {
    const bin = path.join(ROOT_DIR, 'node_modules/.bin/redocly');
    const result = await run(bin, ['lint', '--config', 'openapi/redocly.yaml'], { cwd: ROOT_DIR }).catch((e) => e);
    expect(result.code ?? 0, `${result.stdout}\n${result.stderr}`).to.equal(0);
  });

  it('every operation has a unique operationId and lives in paths/<operationId>.yaml', () => {
    const ids = all.map(({ op }) => op.operationId);
    for (const { where, op } of all)
      expect(op.operationId, where)
        .to.be.a('string')
        .and.match(/^[a-z][a-z0-9_]*$/);
    expect(new Set(ids).size).to.equal(ids.length);
    for (const id of ids) expect(fs.existsSync(path.join(ROOT_DIR, 'openapi/paths', `${id}.yaml`)), `openapi/paths/${id}.yaml`).to.equal(true);
  });

  it('every request body media type has a schema and an example', () => {
    for (const { where, file, op } of all) {
      const body = deref(op.requestBody, docs[file as keyof typeof docs]);
      for (const [type, media] of Object.entries((body?.content ?? {}) as Json)) {
        expect(media.schema, `${where} request ${type} schema`).to.be.an('object');
        expect(hasExample(media), `${where} request ${type} example`).to.equal(true);
      }
    }
  });

  it('every response has a request-id header and, per media type, a schema and an example', () => {
    for (const { where, file, op } of all) {
      const doc = docs[file as keyof typeof docs];
      expect(Object.keys(op.responses ?? {}), where).to.not.be.empty;
      for (const [status, ref] of Object.entries(op.responses as Json)) {
        const response = deref(ref, doc);
        const at = `${where} -> ${status}`;
        expect(deref(response.headers?.['request-id'], doc)?.schema, `${at} request-id header`).to.be.an('object');
        expect(Object.keys(response.content ?? {}), `${at} content`).to.not.be.empty;
        for (const [type, media] of Object.entries(response.content as Json)) {
          expect(media.schema, `${at} ${type} schema`).to.be.an('object');
          expect(hasExample(media), `${at} ${type} example`).to.equal(true);
        }
      }
    }
  });

  it('the stream example names every frame after its data.type', () => {
    const create = all.find(({ op }) => op.operationId === 'messages_create')!.op;
    const stream: string = create.responses['200'].content['text/event-stream'].example;
    const frames = stream.split('\n\n').filter((f) => f.trim());
    expect(frames.length).to.be.greaterThan(5);
    for (const frame of frames) {
      const [eventLine, dataLine] = frame.split('\n');
      expect(eventLine).to.match(/^event: \w+$/);
      expect(JSON.parse(dataLine!.replace(/^data: /, '')).type).to.equal(eventLine!.slice('event: '.length));
    }
  });

  it('every component file under openapi/components is used by a root', () => {
    const used = new Set(
      Object.values(docs).flatMap((doc) =>
        Object.entries(doc.components as Json).flatMap(([kind, named]) => Object.keys(named as Json).map((n) => `${kind}/${n}`)),
      ),
    );
    const dir = path.join(ROOT_DIR, 'openapi/components');
    const files = fs.readdirSync(dir).flatMap((kind) => fs.readdirSync(path.join(dir, kind)).map((f) => `${kind}/${f.replace(/\.yaml$/, '')}`));
    expect(
      files.filter((f) => !used.has(f)),
      'unused component files',
    ).to.deep.equal([]);
  });
});
