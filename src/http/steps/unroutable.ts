// Step 2: requests Node would answer with a bare status: an HTTP/1.1 request without Host (400,
// RFC 9112 says so) and an `Expect` other than 100-continue (417; src/http/server.ts passes those
// here from 'checkExpectation'). Answered in the endpoint's error shape, and the connection closed
// (the body, if any, was not read).
import type { RequestHandler } from 'express';
import { Failure } from '../../domain/failure.ts';
import { HttpError } from '../errors.ts';

/** What Node itself takes for 100-continue (node:_http_server's continueExpression). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

export function refuseUnroutable(): RequestHandler {
  return (req, res, next) => {
    const noHost = req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1;
    const expect = req.headers.expect;
    const badExpect = expect !== undefined && !CONTINUE.test(expect);
    if (!noHost && !badExpect) return next();
    res.shouldKeepAlive = false;
    res.setHeader('connection', 'close');
    next(noHost ? new Failure(HttpError.MalformedHttp, 'An HTTP/1.1 request needs a Host header.') : new Failure(HttpError.ExpectationFailed, ''));
  };
}
