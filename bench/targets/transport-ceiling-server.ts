// The two transports' own ceilings, side by side, with no model and no data plane: a node:http2
// server answering every stream the way a gRPC unary call is answered (read the whole request,
// then headers, one 60-byte message and the status trailers, exactly what src/grpc/h2-response.ts
// sends), and a uWebSockets.js route answering every request with a 60-byte body once it has read the
// request. It measures what reading a request and sending an answer costs on each transport, so
// the gRPC unary target (at least HTTP binary's throughput) can be judged against what the
// transport under it allows. Drive it with a client written in C so no JavaScript client shares
// the cores (Debian's nghttp2-client has h2load; the commands are in docs/grpc.md, "Performance"):
//   node dist/bench/targets/transport-ceiling-server.js [--h2-port 9001] [--uws-port 9000]

import http2 from 'node:http2';
import type { Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { loadUws } from 'infernode/tooling';

const MESSAGE_BYTES = 60;

/** One length-prefixed gRPC message of MESSAGE_BYTES bytes. */
function grpcMessage(): Buffer {
  const framed = Buffer.alloc(5 + MESSAGE_BYTES, 7);
  framed[0] = 0;
  framed.writeUInt32BE(MESSAGE_BYTES, 1);
  return framed;
}

function serveHttp2(port: number): void {
  const framed = grpcMessage();
  const headers = { ':status': 200, 'content-type': 'application/grpc' };
  const trailers = { 'grpc-status': '0', 'grpc-message': 'OK' };
  const server = http2.createServer({ settings: { initialWindowSize: 16 * 1024 * 1024 } });
  server.on('connection', (socket: Socket) => socket.setNoDelay(true));
  server.on('stream', (stream) => {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      stream.respond(headers, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers(trailers));
      stream.end(framed);
    });
  });
  server.listen(port, '127.0.0.1');
}

function serveUws(port: number): void {
  const loaded = loadUws();
  if (!loaded.ok) throw new Error(loaded.reason);
  const body = Buffer.alloc(MESSAGE_BYTES, 7);
  loaded.uws
    .App()
    .any('/*', (res) => {
      res.onAborted(() => undefined);
      res.onData((_chunk, isLast) => {
        if (!isLast) return;
        res.cork(() => res.writeHeader('content-type', 'application/octet-stream').end(body));
      });
    })
    .listen('127.0.0.1', port, loaded.uws.LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (socket === false) throw new Error(`uWS could not listen on port ${port}`);
    });
}

function main(): void {
  const { values } = parseArgs({
    options: {
      'h2-port': { type: 'string', default: '9001' },
      'uws-port': { type: 'string', default: '9000' },
    },
  });
  serveHttp2(Number(values['h2-port']));
  serveUws(Number(values['uws-port']));
  console.log(
    JSON.stringify({ h2Port: Number(values['h2-port']), uwsPort: Number(values['uws-port']) }),
  );
}

main();
