// The least a Node reverse proxy can do per request, for `npm run bench:ceiling`: read the request,
// forward it over a keep-alive pool, pipe the answer back. No authentication, no validation, no
// ledger, no log. What it reaches at c=200 is the ceiling of any gateway that runs as one Node
// process on this machine, beside the load generator and the upstream on the same cores.
import http from 'node:http';
import { Agent, request } from 'undici';

const upstream = process.argv[2];
const agent = new Agent({ keepAliveTimeout: 60_000, connections: 512 });
const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const headers = {};
  for (const [name, value] of Object.entries(req.headers)) if (!HOP.has(name)) headers[name] = value;
  try {
    const answer = await request(upstream + req.url, { method: req.method, headers, body: Buffer.concat(chunks), dispatcher: agent });
    const out = {};
    for (const [name, value] of Object.entries(answer.headers)) if (!HOP.has(name)) out[name] = value;
    res.writeHead(answer.statusCode, out);
    for await (const chunk of answer.body) res.write(chunk);
    res.end();
  } catch {
    res.writeHead(502).end();
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ origin: `http://127.0.0.1:${server.address().port}` })));
