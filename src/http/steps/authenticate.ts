// Step 5: the caller, before any byte of the body is read: the admin token on the operators'
// surface, a customer key elsewhere (anonymous where the operation allows it). One named exit
// each: 401 invalid_admin_token, 401/403 for a customer key (src/http/auth.ts says which).
import type { RequestHandler } from 'express';
import type { CustomerService } from '../../customers/service.ts';
import { Failure } from '../../domain/failure.ts';
import { adminTokenMatches, authenticateCustomer } from '../auth.ts';
import { HttpError } from '../errors.ts';
import { stateOf } from './state.ts';

export function authenticate(options: { adminToken: string; customers: CustomerService }): RequestHandler {
  return async (req, res, next) => {
    const state = stateOf(res);
    const operation = state.operation!;
    if (operation.schemes.size === 0) return next();
    if (state.surface.admin) {
      return adminTokenMatches(req.headers, options.adminToken) ? next() : next(new Failure(HttpError.InvalidAdminToken, ''));
    }
    const auth = await authenticateCustomer(req.headers, operation, options.customers, req.url);
    if (auth.kind === 'rejected') {
      if (auth.who) state.exchange.refusedCaller = auth.who; // named in the access log
      return next(auth.failure);
    }
    if (auth.kind === 'caller') state.caller = state.exchange.caller = auth.caller;
    next();
  };
}
