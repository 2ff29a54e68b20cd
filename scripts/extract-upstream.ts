// Extracts the subset of OpenAI's published OpenAPI document that the gateway calls into
// openapi/upstream/openai-*.yaml: the chosen operations, every component they reference
// (transitively), and only the tags and security schemes they use. Operations and components are
// copied node for node, so their text stays as published; only `info` is rewritten, to carry the
// citation and the MIT notice.
//
//   npx tsx scripts/extract-upstream.ts <path/to/openapi.yaml> --commit <sha> --date <YYYY-MM-DD> \
//     [--license <path/to/LICENSE>] [--out openapi/upstream]
//
// The input is a checkout (or `git show <commit>:openapi.yaml > file`) of
// https://github.com/openai/openai-openapi; the repository itself is never committed here.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Document, Scalar, parseDocument, type Node } from 'yaml';

interface Extraction {
  file: string;
  title: string;
  summary: string;
  operations: Array<[path: string, method: string]>;
  /** Components no operation references but our validator needs (named with their kind). */
  extra?: Array<[kind: string, name: string]>;
}

const EXTRACTIONS: Extraction[] = [
  {
    file: 'openai-chat-completions.yaml',
    title: 'OpenAI API: Chat Completions (subset vendored for the gateway)',
    summary: 'POST /chat/completions (JSON response and the SSE chunk object).',
    operations: [['/chat/completions', 'post']],
  },
  {
    file: 'openai-responses.yaml',
    title: 'OpenAI API: Responses (subset vendored for the gateway)',
    summary:
      'POST /responses (JSON response and the SSE event union), GET and DELETE /responses/{response_id}, ' +
      'POST /responses/{response_id}/cancel, GET /responses/{response_id}/input_items, POST /responses/input_tokens, ' +
      'POST /responses/compact. ErrorResponse is added so error bodies can be checked.',
    operations: [
      ['/responses', 'post'],
      ['/responses/{response_id}', 'get'],
      ['/responses/{response_id}', 'delete'],
      ['/responses/{response_id}/cancel', 'post'],
      ['/responses/{response_id}/input_items', 'get'],
      ['/responses/input_tokens', 'post'],
      ['/responses/compact', 'post'],
    ],
    extra: [['schemas', 'ErrorResponse']],
  },
  {
    file: 'openai-videos.yaml',
    title: 'OpenAI API: Videos (subset vendored for the gateway)',
    summary:
      'POST /videos (multipart and JSON), GET /videos, GET /videos/{video_id}, DELETE /videos/{video_id}, ' +
      'GET /videos/{video_id}/content. ErrorResponse is added although no videos operation declares an error response.',
    operations: [
      ['/videos', 'post'],
      ['/videos', 'get'],
      ['/videos/{video_id}', 'get'],
      ['/videos/{video_id}', 'delete'],
      ['/videos/{video_id}/content', 'get'],
    ],
    extra: [['schemas', 'ErrorResponse']],
  },
  {
    file: 'openai-responses-websocket.yaml',
    title: 'OpenAI API: Responses WebSocket mode messages (subset vendored for the gateway)',
    summary:
      'the messages of the Responses WebSocket mode (wss://.../v1/responses), which the document describes by schemas ' +
      'only, with no operation: ResponsesClientEvent (response.create), ResponsesServerEvent (every stream event plus ' +
      'stream_id, and ResponseWsError), and every component they reference.',
    operations: [],
    extra: [
      ['schemas', 'ResponsesClientEvent'],
      ['schemas', 'ResponsesServerEvent'],
    ],
  },
];

const REPOSITORY = 'https://github.com/openai/openai-openapi';
const SOURCE_PATH = 'openapi.yaml';

function usage(message: string): never {
  console.error(`${message}\nusage: tsx scripts/extract-upstream.ts <openapi.yaml> --commit <sha> --date <YYYY-MM-DD> [--license <LICENSE>] [--out <dir>]`);
  process.exit(2);
}

/** Every `#/components/<kind>/<name>` reference inside a plain JS value. */
function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/')) into.add(child);
      else collectRefs(child, into);
    }
  }
}

function refParts(ref: string): [kind: string, name: string] {
  const [, , kind, ...rest] = ref.split('/');
  if (!kind || rest.length !== 1) throw new Error(`unsupported $ref ${ref}`);
  return [kind, decodeURIComponent(rest[0]!.replace(/~1/g, '/').replace(/~0/g, '~'))];
}

function extract(source: Document, plain: Record<string, any>, spec: Extraction, citation: { commit: string; date: string; license: string }): string {
  const out = new Document({});

  // Which components: start from the operations (and extras), follow $refs to a fixed point.
  const wanted = new Set<string>();
  const pending: unknown[] = [];
  for (const [p, method] of spec.operations) {
    const op = plain.paths?.[p]?.[method];
    if (!op) throw new Error(`operation ${method.toUpperCase()} ${p} not found in the source`);
    pending.push(op, plain.paths[p].parameters ?? []);
  }
  for (const [kind, name] of spec.extra ?? []) wanted.add(`#/components/${kind}/${name}`);
  for (const ref of wanted) pending.push(plain.components?.[refParts(ref)[0]]?.[refParts(ref)[1]]);
  while (pending.length > 0) {
    const found = new Set<string>();
    collectRefs(pending.pop(), found);
    for (const ref of found) {
      if (wanted.has(ref)) continue;
      const [kind, name] = refParts(ref);
      const target = plain.components?.[kind]?.[name];
      if (target === undefined) throw new Error(`dangling $ref ${ref}`);
      wanted.add(ref);
      pending.push(target);
    }
  }

  // Security schemes named by the document-level or operation-level `security`.
  const schemes = new Set<string>();
  const security = [plain.security ?? [], ...spec.operations.map(([p, m]) => plain.paths[p][m].security ?? [])];
  for (const list of security) for (const requirement of list) for (const name of Object.keys(requirement)) schemes.add(name);
  const tags = new Set(spec.operations.flatMap(([p, m]) => (plain.paths[p][m].tags ?? []) as string[]));

  out.set('openapi', source.get('openapi', true));
  const description = new Scalar(
    [
      `Vendored subset of OpenAI's published OpenAPI document: ${spec.summary}`,
      '',
      `Source: ${REPOSITORY}, file \`${SOURCE_PATH}\`, commit ${citation.commit} (${citation.date}).`,
      'Extracted by scripts/extract-upstream.ts: operations and components are copied as published; only this',
      '`info` block is ours. Do not edit by hand; re-run the script against a newer commit instead.',
      '',
      'License of the source document (MIT), reproduced as required:',
      '',
      citation.license.trim(),
    ].join('\n'),
  );
  description.type = Scalar.BLOCK_LITERAL;
  out.set('info', {
    title: spec.title,
    version: plain.info.version,
    description,
    license: plain.info.license,
    'x-upstream-source': { repository: REPOSITORY, path: SOURCE_PATH, commit: citation.commit, date: citation.date, 'info.version': plain.info.version },
  });
  out.set('servers', source.get('servers', true));
  out.set('security', source.get('security', true));
  const tagNodes = (plain.tags ?? [])
    .map((t: { name: string }, i: number) => [t.name, i] as const)
    .filter(([name]: readonly [string, number]) => tags.has(name));
  // Only tags the source declares at the top level (it does not declare every tag it uses).
  if (tagNodes.length > 0)
    out.set(
      'tags',
      tagNodes.map(([, i]: readonly [string, number]) => source.getIn(['tags', i], true)),
    );

  for (const [p, method] of spec.operations) {
    out.setIn(['paths', p, method], source.getIn(['paths', p, method], true) as Node);
    const shared = source.getIn(['paths', p, 'parameters'], true);
    if (shared) out.setIn(['paths', p, 'parameters'], shared);
  }
  const byKind = new Map<string, string[]>();
  for (const ref of wanted) {
    const [kind, name] = refParts(ref);
    byKind.set(kind, [...(byKind.get(kind) ?? []), name]);
  }
  for (const kind of [...byKind.keys()].sort()) {
    for (const name of byKind.get(kind)!.sort()) out.setIn(['components', kind, name], source.getIn(['components', kind, name], true) as Node);
  }
  for (const name of [...schemes].sort())
    out.setIn(['components', 'securitySchemes', name], source.getIn(['components', 'securitySchemes', name], true) as Node);

  out.commentBefore = ` Generated by scripts/extract-upstream.ts from ${REPOSITORY} ${SOURCE_PATH} @ ${citation.commit}.\n Copyright (c) OpenAI, MIT License (full text in info.description). Do not edit by hand.`;
  return out.toString({ lineWidth: 100 });
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { commit: { type: 'string' }, date: { type: 'string' }, license: { type: 'string' }, out: { type: 'string', default: 'openapi/upstream' } },
  });
  const input = positionals[0];
  if (!input) usage('missing the path to openapi.yaml');
  if (!values.commit || !/^[0-9a-f]{40}$/.test(values.commit)) usage('--commit must be the full 40-character commit hash');
  if (!values.date || !/^\d{4}-\d{2}-\d{2}$/.test(values.date)) usage('--date must be the commit date, YYYY-MM-DD');
  const licensePath = values.license ?? path.join(path.dirname(input), 'LICENSE');
  if (!fs.existsSync(licensePath)) usage(`no LICENSE at ${licensePath}; pass --license`);
  const license = fs.readFileSync(licensePath, 'utf8');
  if (!/MIT License/.test(license)) usage(`${licensePath} is not the MIT license text`);

  const source = parseDocument(fs.readFileSync(input, 'utf8'), { uniqueKeys: false });
  if (source.errors.length > 0) throw source.errors[0];
  const plain = source.toJS({ maxAliasCount: -1 }) as Record<string, any>;
  fs.mkdirSync(values.out!, { recursive: true });
  for (const spec of EXTRACTIONS) {
    const text = extract(source, plain, spec, { commit: values.commit, date: values.date, license });
    const target = path.join(values.out!, spec.file);
    fs.writeFileSync(target, text);
    console.log(`${target}: ${(text.length / 1024).toFixed(0)} KiB`);
  }
}

main();
