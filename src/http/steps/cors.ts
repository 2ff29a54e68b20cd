// Step 3: cross-origin headers on every answer of the public surface to an allowed origin
// (preflights are answered by the route step, which knows the path's methods).
import type { RequestHandler } from 'express';
import type { Cors } from '../cors.ts';
import { stateOf } from './state.ts';

export function corsHeaders(cors: Cors | undefined): RequestHandler {
  return (req, res, next) => {
    if (cors && !stateOf(res).surface.admin) {
      const headers = cors.answerHeaders(req.headers);
      if (headers) for (const name in headers) res.setHeader(name, headers[name]!);
    }
    next();
  };
}
