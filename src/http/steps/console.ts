// Between steps 2 and 3 (CONSOLE=true, the default): the web console's static files under /console/, as
// `npm run build` wrote them into dist/console/ (sources in console/, docs/console.md). They are
// files, not API operations, so the contract does not list them; every call the console makes is
// an ordinary API request through all the steps. Each answer carries a strict policy: the
// console's own script and style only (nothing inline), calls to this origin only, no framing,
// Trusted Types so nothing can be written as HTML. Access-logged at debug (operation
// `console_asset`) and counted in the metrics; no request-log row, as for probes.
import fs from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import { Failure } from '../../domain/failure.ts';
import { HttpError } from '../errors.ts';
import { sendFailure } from '../exchange.ts';
import { stateOf } from './state.ts';

/** The console's operation name in the access log and metrics. */
export const CONSOLE_ASSET = 'console_asset';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "media-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const SECURITY_HEADERS: ReadonlyArray<[string, string]> = [
  ['content-security-policy', CONSOLE_CSP],
  ['x-frame-options', 'DENY'],
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
  ['cross-origin-opener-policy', 'same-origin'],
  ['cross-origin-resource-policy', 'same-origin'],
];

/** Content-hashed files may be cached for ever; index.html names the current ones, so it is revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Mounted at /console: `dir` is the built console (dist/console). */
export function serveConsole(dir: string): RequestHandler {
  const files = express.static(dir, {
    index: ['index.html'],
    redirect: false,
    fallthrough: false,
    dotfiles: 'deny',
    lastModified: false,
    setHeaders: (res, file) => res.setHeader('cache-control', path.basename(path.dirname(file)) === 'assets' ? IMMUTABLE : 'no-cache'),
  });
  return (req, res) => {
    const state = stateOf(res);
    state.exchange.operationId = CONSOLE_ASSET;
    res.once('close', () => state.handled());
    for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
    // Relative asset URLs need the trailing slash: /console -> /console/.
    if (state.path === '/console') {
      const query = req.originalUrl.indexOf('?');
      res.statusCode = 308;
      res.setHeader('location', `/console/${query === -1 ? '' : req.originalUrl.slice(query)}`);
      return void res.end();
    }
    files(req, res, () => {
      const message = fs.existsSync(path.join(dir, 'index.html'))
        ? `Nothing at ${state.path.slice(0, 200)} in the console.`
        : 'The console is not built in this installation: `npm run build` writes it into dist/console.';
      sendFailure(res, new Failure(HttpError.RouteNotFound, message), 'openai', state.exchange);
    });
  };
}
