import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { createApp } from '../../../src/http/app.ts';
import type { Services } from '../../../src/services.ts';
import { customers, loadSpecs, logger } from './steps/harness.ts';

describe('the Express application', () => {
  it('makes requests and responses that already have the prototypes Express gives them (no per-request setPrototypeOf)', async () => {
    const { public: pub, admin } = await loadSpecs();
    const services = { customers, requestLogs: {} } as unknown as Services;
    const app = createApp({
      publicSurface: { spec: pub, handlers: {} },
      adminSurface: { spec: admin, handlers: {}, admin: true },
      services,
      logger,
      adminToken: 'adm_secret_token',
      bodyLimitBytes: 1024,
      validateResponses: false,
      databaseUnavailable: () => false,
    });
    const req = new app.classes.IncomingMessage(new net.Socket());
    const res = new app.classes.ServerResponse(req);
    expect(Object.getPrototypeOf(req)).to.equal(app.express.request);
    expect(Object.getPrototypeOf(res)).to.equal(app.express.response);
    expect(req).to.be.instanceOf(http.IncomingMessage);
    expect(res).to.be.instanceOf(http.ServerResponse);
    expect((req as unknown as { app: unknown }).app).to.equal(app.express);
    expect(app.express.get('x-powered-by')).to.equal(false);
  });
});
