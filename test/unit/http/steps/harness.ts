// Drives some steps of the request flow (src/http/steps/) on a real socket: an Express app with the
// request-id step first, the steps under test, a last middleware that answers with what the steps
// left in the request state, and the error handler. No database: the customers service is a stub.
import http from 'node:http';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import { ROOT_DIR } from '../../../../src/config.ts';
import type { Caller, CustomerService } from '../../../../src/customers/service.ts';
import { createLogger } from '../../../../src/logger.ts';
import { loadSpec, type Spec } from '../../../../src/http/spec.ts';
import { errorHandler } from '../../../../src/http/steps/error-handler.ts';
import { requestId } from '../../../../src/http/steps/request-id.ts';
import { stateOf, type Surface } from '../../../../src/http/steps/state.ts';
import { listen } from '../../../../src/shared/listen.ts';

export const logger = createLogger('silent');
export const CALLER: Caller = { customerId: 'cus_1', keyId: 'key_1', allowedModels: null, limited: false };
/** Knows one key, `sk-gw-good`. */
export const customers = { authenticate: async (key: string) => (key === 'sk-gw-good' ? CALLER : null) } as unknown as CustomerService;

let specs: Promise<{ public: Spec; admin: Spec }> | undefined;
export function loadSpecs(): Promise<{ public: Spec; admin: Spec }> {
  return (specs ??= Promise.all([loadSpec(path.join(ROOT_DIR, 'generated/openapi.json')), loadSpec(path.join(ROOT_DIR, 'generated/admin.json'))]).then(
    ([pub, admin]) => ({ public: pub, admin }),
  ));
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** What the last middleware answers: the state the steps left. */
const report: RequestHandler = (_req, res) => {
  const state = stateOf(res);
  state.handled();
  const { operation, params, caller, body, query } = state;
  res.json({
    operationId: operation?.operationId,
    params,
    caller,
    body: body?.value,
    form: body?.form,
    query,
    shape: state.shape,
    admin: state.surface.admin === true,
  });
};

export async function startSteps(steps: RequestHandler[], handlers: Surface['handlers'] = {}): Promise<{ url: string; close: () => Promise<void> }> {
  const { public: pub, admin } = await loadSpecs();
  const app = express();
  app.use(
    requestId({
      publicSurface: { spec: pub, handlers },
      adminSurface: { spec: admin, handlers, admin: true },
      accessLog: { finish: () => undefined, turn: () => undefined },
    }),
  );
  for (const step of steps) app.use(step);
  app.use(report);
  app.use(errorHandler(logger));
  const server = http.createServer({ requireHostHeader: false }, app);
  server.on('checkExpectation', app); // as src/http/server.ts does
  const url = await listen(server, 0, '127.0.0.1');
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function call(url: string, method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const response = await fetch(url + target, { method, headers, body });
  const text = await response.text();
  return { status: response.status, headers: Object.fromEntries(response.headers), body: text ? JSON.parse(text) : undefined };
}
