// The spec-driven fuzz suite of the hardening issue: for every operation of generated/openapi.json
// and generated/admin.json, first every hostile input in every place (sweep.ts), then seeded random
// requests built from the operation's own schemas and mutated (requests.ts). Each answer is checked
// (oracle.ts); after the run the ledger must be whole: reconciled, no hold left open, and every
// journal row explained by a request that succeeded. FUZZ_SEED and FUZZ_RUNS replay or widen a run.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { ROOT_DIR } from '../../src/config.ts';
import { loadSpec } from '../../src/http/spec.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { TRANSPORT_GARBAGE } from './hostile.ts';
import { describeRequest, send, sendRaw } from './http-client.ts';
import { KNOWN_FINDINGS, knownFindingFor, type KnownFinding } from './known-findings.ts';
import { errorShapeOf, loadOperations, type FuzzOperation } from './operations.ts';
import { checkResponse, errorShapeProblems, routed, type Surfaces } from './oracle.ts';
import { requestFor, type Fixtures, type GeneratedRequest } from './requests.ts';
import { sweepFor, unroutedSweep } from './sweep.ts';

const SEED = process.env.FUZZ_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const BODY_LIMIT = 256 * 1024;
const ANSWER_TIMEOUT_MS = 10_000;
/** A file to append every failure to (the assertion message shows the first few). */
const REPORT = process.env.FUZZ_REPORT;
/** An operationId whose every exchange is printed (to see how deep the requests reach). */
const TRACE = process.env.FUZZ_TRACE;

describe(`fuzz: every operation of both contracts, hostile input (seed ${SEED}, ${RUNS} runs per operation)`, function () {
  this.timeout(300_000);
  const operations = loadOperations();
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  let gateway: TestGateway;
  let surfaces: Surfaces;
  let fixtures: Fixtures;
  let customerId: string;
  let firstEntryId: bigint;
  /** The own property names of the prototypes a pollution would reach, before the run. */
  const prototypes = () => [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((p) => Object.getOwnPropertyNames(p).join()).join('|');
  const prototypeNames = prototypes();
  const succeeded = new Set<string>();
  const sent = new Set<string>();
  const acceptedTasks = new Set<string>();
  const creditReferences = new Set<string>();
  const known = new Map<KnownFinding, string[]>();
  /** Statuses seen per operation, printed at the end: shows how deep the run reached. */
  const statuses = new Map<string, Map<number, number>>();

  before(async () => {
    gateway = await startTestGateway({ env: { BODY_LIMIT_BYTES: String(BODY_LIMIT), KEY_CACHE_MS: '60000' } });
    surfaces = {
      public: await loadSpec(path.join(ROOT_DIR, 'generated/openapi.json')),
      admin: await loadSpec(path.join(ROOT_DIR, 'generated/admin.json')),
    };
    const customer = await gateway.customerWithKey();
    customerId = customer.customerId;
    const decoyKey = await gateway.admin('POST', `/admin/v1/customers/${customerId}/api-keys`, { name: 'decoy, revoked by the fuzzer' });
    const other = await gateway.admin('POST', '/admin/v1/customers', { name: 'Someone else' });
    expect((await gateway.admin('POST', `/admin/v1/customers/${customerId}/credits`, { amount: '5.00', reference: 'fuzz-balance' })).status).to.equal(201);
    const task = await fetch(`${gateway.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/seedance', prompt: 'fuzz fixture', seconds: 5, resolution: '480p' }),
    });
    expect(task.status).to.equal(202);
    const taskId = ((await task.json()) as { task_id: string }).task_id;
    acceptedTasks.add(taskId);
    const visible = gateway.services.discovery.visibleModels(null);
    const models = visible.map((m) => m.id);
    const modelsByGroup: Record<string, string[]> = {};
    for (const m of visible) (modelsByGroup[m.group] ??= []).push(m.id);
    fixtures = {
      customerKey: customer.key,
      adminToken: gateway.adminToken,
      ids: {
        customer_id: [customerId, other.body.id, 'cus_nobody'],
        key_id: [decoyKey.body.id, 'key_nobody'],
        task_id: [taskId, 'vt_nobody'],
        model_id: models,
      },
      models,
      modelsByGroup,
      bodyLimitBytes: BODY_LIMIT,
    };
    await gateway.settled();
    const [last] = await gateway.db('ledger_entries').max<{ max: string | null }[]>('id as max');
    firstEntryId = BigInt(last?.max ?? 0) + 1n;
  });
  after(async () => {
    const total = [...statuses.values()].reduce((n, m) => n + [...m.values()].reduce((a, b) => a + b, 0), 0);
    console.log(`      ${total} requests; statuses by operation:`);
    for (const [id, seen] of statuses)
      console.log(
        `        ${id}: ${[...seen]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}x${n}`)
          .join(' ')}`,
      );
    for (const [finding, requests] of known)
      console.log(
        `      known finding ${finding.id} (owner: ${finding.owner}), ${requests.length} request(s), e.g.\n        ${requests[0]!.replace(/\n/g, '\n        ')}`,
      );
    for (const stale of KNOWN_FINDINGS.filter((f) => !known.has(f)))
      console.log(`      known finding ${stale.id} did not occur: fixed? remove it from test/fuzz/known-findings.ts`);
    await gateway?.close();
  });

  const errorLogsFor = (requestId: string) =>
    !requestId
      ? []
      : gateway
          .rawLogs()
          .split('\n')
          .filter((line) => line.includes(requestId) && /"level":(5|6)0/.test(line));

  /** Sends one request and returns its problems (empty when every check holds or a known finding explains it). */
  async function exchange(request: GeneratedRequest): Promise<string | undefined> {
    const response = await send(gateway.url, request, ANSWER_TIMEOUT_MS);
    const requestId = String(response.headers['request-id'] ?? '');
    sent.add(requestId);
    if (response.status >= 200 && response.status < 300) {
      succeeded.add(requestId);
      const body = response.headers['content-type']?.startsWith('application/json') ? (JSON.parse(response.text) as Record<string, any>) : {};
      if (response.status === 202 && body.task_id) acceptedTasks.add(body.task_id);
      if (body.object === 'credit' || body.object === 'adjustment') creditReferences.add(body.entry.reference);
    }
    const route = routed(surfaces, request.method, request.path);
    const operationId = typeof route === 'object' ? route.operationId : (route ?? 'unrouted');
    const seen = statuses.get(operationId) ?? new Map<number, number>();
    statuses.set(operationId, seen.set(response.status, (seen.get(response.status) ?? 0) + 1));
    if (TRACE && operationId === TRACE) console.log(`${request.bodyKind} | ${request.credential} -> ${response.status} ${response.text.slice(0, 160)}`);
    const problems = checkResponse(surfaces, byId, request, response);
    if (prototypes() !== prototypeNames || ({} as Record<string, unknown>).x !== undefined) problems.push('a prototype changed');
    if (problems.length === 0) return undefined;
    const logs = errorLogsFor(requestId);
    const finding = knownFindingFor(operationId, response.status, logs);
    const report = `${describeRequest(request)}\n  credential: ${request.credential}, body: ${request.bodyKind}\n  -> ${response.timedOut ? 'no answer' : `${response.status} ${response.text.slice(0, 300)}`}\n  problems: ${problems.join('; ')}${logs.length ? `\n  gateway log: ${logs.map((l) => l.slice(0, 1500)).join('\n  ')}` : ''}`;
    if (finding && problems.every((p) => p === `status ${response.status}`)) {
      known.set(finding, [...(known.get(finding) ?? []), report]);
      return undefined;
    }
    return report;
  }

  for (const op of operations) {
    it(`${op.operationId} (${op.method} ${op.template}): the sweep of hostile inputs, then ${RUNS} random requests`, async () => {
      const failures: string[] = [];
      for (const request of sweepFor(op, fixtures, SEED)) {
        const failure = await exchange(request);
        if (failure) failures.push(failure);
      }
      const random = await randomRun(op);
      if (random) failures.push(random);
      if (REPORT && failures.length) fs.appendFileSync(REPORT, `## ${op.operationId}\n\n${failures.join('\n\n')}\n\n`);
      expect(failures, `${failures.length} request(s) failed:\n${failures.slice(0, 8).join('\n\n')}`).to.deep.equal([]);
    });
  }

  /** The random part: a failure is shrunk to its smallest request and returned with how to replay it. */
  async function randomRun(op: FuzzOperation): Promise<string | undefined> {
    const property = fc.asyncProperty(requestFor(op, fixtures), async (request) => {
      if (process.env.FUZZ_DEBUG) console.log('SEND', describeRequest(request).slice(0, 400));
      const failure = await exchange(request);
      if (failure) throw new Error(failure);
    });
    const details = await fc.check(property, { seed: SEED, numRuns: RUNS, endOnFailure: false, maxSkipsPerRun: 0 });
    if (!details.failed) return undefined;
    return `random request ${details.numRuns} failed; replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} (fast-check seed ${details.seed}, path "${details.counterexamplePath}"), shrunk to:\n${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`;
  }

  it('methods no operation declares (POST /healthz, PUT /v1/models, ...) with prototype-shaped bodies: 404 in the error shape, nothing read', async () => {
    const failures: string[] = [];
    for (const request of unroutedSweep(operations, fixtures)) {
      const failure = await exchange(request);
      if (failure) failures.push(failure);
    }
    expect(failures, failures.slice(0, 8).join('\n\n')).to.deep.equal([]);
  });

  it('answers what the HTTP parser refuses (bad framing, NUL, oversized headers) in the error shape, with a request-id', async () => {
    const failures: string[] = [];
    for (const bytes of TRANSPORT_GARBAGE) {
      const response = await sendRaw(gateway.url, bytes, ANSWER_TIMEOUT_MS);
      const target = /^[A-Z]+ (\/[^ \r\n]*)/.exec(bytes)?.[1] ?? '/';
      let body: unknown;
      try {
        body = JSON.parse(response.text);
      } catch {
        body = undefined;
      }
      const problems = [
        ...(response.status >= 400 && response.status < 500 ? [] : [`status ${response.status}`]),
        ...(/^req_/.test(String(response.headers['request-id'] ?? '')) ? [] : ['no request-id header']),
        ...errorShapeProblems(body, errorShapeOf(target)),
      ];
      if (problems.length) failures.push(`${JSON.stringify(bytes.slice(0, 120))} -> ${response.status} ${response.text.slice(0, 200)}: ${problems.join('; ')}`);
    }
    expect(failures).to.deep.equal([]);
  });

  it('leaves the ledger whole: reconciled, no hold open, every journal row explained by a request that succeeded', async () => {
    await gateway.settled();
    expect(await gateway.services.ledger.reconcile()).to.deep.equal([]);
    // Every charge of the run equals its usage priced again (nothing delivered was dropped).
    const priced = await gateway.services.ledger.reconcilePriced({ since: new Date(0), until: new Date(Date.now() + 60_000) });
    expect(priced.differences, 'charges that differ from their priced usage').to.deep.equal([]);
    const pending = await gateway.db('reservations').where({ status: 'pending' }).pluck<string[]>('ref');
    expect(
      pending.filter((ref) => !acceptedTasks.has(ref)),
      'holds left pending by the fuzz run',
    ).to.deep.equal([]);
    const entries = await gateway.db('ledger_entries').where('id', '>=', firstEntryId.toString()).orderBy('id');
    const unexplained = entries.filter((e: { kind: string; reference: string; reservation_ref: string | null; amount: string | bigint }) => {
      if (e.kind === 'top_up' || e.kind === 'adjustment') return !creditReferences.has(e.reference);
      // A credit that repaid debt first (debt comes from an adjustment recorded past the balance).
      if (e.kind === 'debt_repaid') return !creditReferences.has(e.reference.slice('debt_repaid:'.length));
      // A request that drew from its process's credit grant is charged by its own reference
      // (`charge:<request id>`); the grant itself is reserved, shrunk and given back around them.
      if (e.kind === 'charge') return !succeeded.has(e.reference.slice('charge:'.length));
      if (e.reservation_ref?.startsWith('gr_') && ['reserve', 'unreserve', 'release'].includes(e.kind)) return false;
      const ref = e.reservation_ref ?? '';
      if (e.kind === 'settle' && BigInt(e.amount) > 0n) return !succeeded.has(ref) && !acceptedTasks.has(ref);
      if (e.kind === 'reserve' || e.kind === 'settle' || e.kind === 'release') return !sent.has(ref) && !acceptedTasks.has(ref);
      return true;
    });
    expect(unexplained, 'journal rows no successful request explains').to.deep.equal([]);
    console.log(`      ${entries.length} journal rows checked; ${succeeded.size} requests succeeded; ${acceptedTasks.size} video tasks accepted`);
    const unexplainedErrors = gateway.logs.filter((l) => (l.level as number) >= 50 && !KNOWN_FINDINGS.some((f) => f.log.test(JSON.stringify(l))));
    expect(
      unexplainedErrors.map((l) => JSON.stringify(l).slice(0, 800)),
      'error log lines',
    ).to.deep.equal([]);
    expect(prototypes()).to.equal(prototypeNames);
  });
});
