// Step 1: every request gets an id (`request-id`, and `x-request-id`, which the OpenAI SDKs read),
// its surface and error shape, and its exchange, logged once the response closes. The id keys the
// request's hold, charge and limits, so it is always minted here: a trusted proxy's `x-request-id`
// (TRUST_REQUEST_ID) is echoed and recorded beside it, never used as a money reference.
import type { RequestHandler } from 'express';
import { newRequestId } from '../../shared/ids.ts';
import type { AccessLog } from '../access-log.ts';
import { shapeOfPath } from '../errors.ts';
import { startExchange } from '../exchange.ts';
import type { Surface } from './state.ts';

const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** GET /metrics is an operator operation (admin token), though its path is the conventional one. */
export const isAdminPath = (path: string): boolean => path === '/admin' || path.startsWith('/admin/') || path === '/metrics' || path === '/metrics/';

export function requestId(options: { publicSurface: Surface; adminSurface: Surface; accessLog: AccessLog; trustRequestId?: boolean }): RequestHandler {
  return (req, res, next) => {
    const incoming = options.trustRequestId ? req.headers['x-request-id'] : undefined;
    const clientRequestId = typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : undefined;
    const id = newRequestId();
    const { exchange, handled } = startExchange(id, clientRequestId);
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = mark === -1 ? url : url.slice(0, mark);
    const surface = isAdminPath(path) ? options.adminSurface : options.publicSurface;
    res.locals.gateway = { surface, path, shape: shapeOfPath(path), exchange, handled, params: {}, caller: null, query: {} };
    res.setHeader('request-id', id);
    res.setHeader('x-request-id', clientRequestId ?? id);
    res.once('close', () => options.accessLog.finish(surface.admin === true, req, res, exchange));
    next();
  };
}
