// A real OTLP/HTTP trace receiver for tests: a node:http server on loopback that accepts
// `POST /v1/traces` with protobuf bodies, decodes them with protobufjs against the OTLP trace
// messages (the subset of opentelemetry-proto's trace.proto and common.proto below, same field
// numbers), and keeps every span it got.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

const OTLP_TRACE_PROTO = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; repeated Event events = 11; Status status = 15;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; }
}
`;

const ExportRequest = protobuf
  .parse(OTLP_TRACE_PROTO, { keepCase: true })
  .root.lookupType('ExportTraceServiceRequest');

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Readonly<Record<string, string>>;
  readonly events: readonly { readonly name: string; readonly ns: bigint }[];
  /** 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  /** The resource's attributes (service.name ...). */
  readonly resource: Readonly<Record<string, string>>;
}

export interface OtlpReceiver {
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Export requests received. */
  requests: number;
  /** Resolves once `n` spans (all of them when `where` is absent) have arrived, or throws. */
  waitFor(
    n: number,
    where?: (s: ReceivedSpan) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      requests++;
      receiver.requests = requests;
      try {
        spans.push(...decode(Buffer.concat(chunks)));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: OtlpReceiver = {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    requests: 0,
    async waitFor(n, where = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = spans.filter(where);
        if (got.length >= n) return got;
        if (Date.now() > deadline) {
          throw new Error(`expected ${n} spans, got ${got.length}: ${got.map((s) => s.name)}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}

interface Decoded {
  resource_spans?: {
    resource?: { attributes?: KeyValue[] };
    scope_spans?: {
      spans?: {
        trace_id: Uint8Array;
        span_id: Uint8Array;
        parent_span_id?: Uint8Array;
        name: string;
        start_time_unix_nano: string;
        end_time_unix_nano: string;
        attributes?: KeyValue[];
        events?: { name: string; time_unix_nano: string }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

interface KeyValue {
  key: string;
  value?: {
    string_value?: string;
    int_value?: string;
    bool_value?: boolean;
    double_value?: number;
  };
}

function decode(body: Buffer): ReceivedSpan[] {
  const doc = ExportRequest.toObject(ExportRequest.decode(body), {
    longs: String,
    defaults: true,
  }) as Decoded;
  const hex = (b: Uint8Array | undefined): string => Buffer.from(b ?? []).toString('hex');
  const attrs = (kvs: KeyValue[] | undefined): Record<string, string> =>
    Object.fromEntries(
      (kvs ?? []).map((kv) => [
        kv.key,
        String(kv.value?.string_value ?? kv.value?.int_value ?? kv.value?.bool_value ?? ''),
      ]),
    );
  const out: ReceivedSpan[] = [];
  for (const rs of doc.resource_spans ?? []) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scope_spans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: hex(s.trace_id),
          spanId: hex(s.span_id),
          parentSpanId: hex(s.parent_span_id),
          name: s.name,
          startNs: BigInt(s.start_time_unix_nano),
          endNs: BigInt(s.end_time_unix_nano),
          attributes: attrs(s.attributes),
          events: (s.events ?? []).map((e) => ({ name: e.name, ns: BigInt(e.time_unix_nano) })),
          statusCode: s.status?.code ?? 0,
          resource,
        });
      }
    }
  }
  return out;
}
