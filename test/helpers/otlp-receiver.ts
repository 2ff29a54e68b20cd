// An OTLP/HTTP trace receiver, as a collector listens on :4318: it keeps every export it is sent
// (the raw bytes, to search them whole) and decodes the JSON encoding (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
// http/json) into spans.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedExport {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export type AttributeValue = string | number | boolean | undefined;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** 1 internal, 2 server, 3 client (the OTLP enum). */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  /** 2: error. */
  statusCode: number;
  attributes: Record<string, AttributeValue>;
  resource: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (traces arrive at /v1/traces). */
  url: string;
  exports: ReceivedExport[];
  /** Every span of the JSON exports received so far. */
  spans(): ReceivedSpan[];
  /** Every byte received, to search for what must never be sent. */
  everything(): Buffer;
  close(): Promise<void>;
}

interface KeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}

const valueOf = ({ value }: KeyValue): AttributeValue =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const json = String(req.headers['content-type']).includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans() {
      const spans: ReceivedSpan[] = [];
      for (const received of exports) {
        if (!String(received.headers['content-type']).includes('json')) continue;
        const body = JSON.parse(received.body.toString('utf8')) as {
          resourceSpans: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans: Array<{ spans: Array<Record<string, any>> }> }>;
        };
        for (const group of body.resourceSpans) {
          const resource = attributesOf(group.resource?.attributes);
          for (const scope of group.scopeSpans)
            for (const span of scope.spans)
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                startNs: BigInt(span.startTimeUnixNano),
                endNs: BigInt(span.endTimeUnixNano),
                statusCode: span.status?.code ?? 0,
                attributes: attributesOf(span.attributes),
                resource,
              });
        }
      }
      return spans;
    },
    everything: () => Buffer.concat(exports.map((e) => Buffer.concat([Buffer.from(JSON.stringify(e.headers)), e.body]))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
