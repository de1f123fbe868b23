// The load generator's own HTTP/2 client (bench/load/h2-client.ts) against node:http2's server
// (nghttp2: Huffman-coded, dynamically indexed headers, real flow control, RST_STREAM, GOAWAY,
// PING, a stream limit) and against a hand-written frame server for what nghttp2 will not send on
// request (padding, a header block split over CONTINUATION frames); and its HPACK decoder against
// hpack.js's encoder. The gRPC layer on top is covered by grpc-load-engine.test.ts.

import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import hpack from 'hpack.js';
import { GrpcUnaryConnection } from '../../../bench/load/grpc-unary-connection.js';
import { framedMessage } from '../../../bench/load/grpc-frames.js';
import { H2Client } from '../../../bench/load/h2-client.js';
import type { H2StreamEvents } from '../../../bench/load/h2-stream.js';
import {
  Flag,
  frame,
  FrameReader,
  FrameType,
  PREFACE,
  Setting,
  wordFrame,
} from '../../../bench/load/h2-frames.js';
import {
  encodeHeaderBlock,
  HeaderBlockDecoder,
  type HeaderField,
} from '../../../bench/load/h2-header-block.js';
import type { RequestOutcome } from '../../../bench/load/multiplexed-connection.js';
import { waitFor } from '../../helpers/wait-for.js';

interface StreamResult {
  readonly blocks: HeaderField[][];
  readonly body: Buffer;
  /** null when the server ended the stream; else why it was aborted. */
  readonly aborted: string | null;
}

const REQUEST_HEADERS = encodeHeaderBlock([
  [':method', 'POST'],
  [':scheme', 'http'],
  [':path', '/echo'],
  [':authority', 'localhost'],
  ['content-type', 'application/grpc'],
  ['te', 'trailers'],
]);

/** Opens one stream and collects what comes back until it ends, one way or the other. */
function exchange(client: H2Client, body: Buffer | null, end = true): Promise<StreamResult> {
  return new Promise((resolve) => {
    const blocks: HeaderField[][] = [];
    const chunks: Buffer[] = [];
    const done = (aborted: string | null): void =>
      resolve({ blocks, body: Buffer.concat(chunks), aborted });
    const events: H2StreamEvents = {
      onHeaders: (fields, endStream) => {
        blocks.push(fields);
        if (endStream) done(null);
      },
      onData: (chunk, endStream) => {
        // The chunk may be a slice of the socket's buffer: keep a copy.
        chunks.push(Buffer.from(chunk));
        if (endStream) done(null);
      },
      onAbort: (reason) => done(reason),
    };
    client.open(REQUEST_HEADERS, events, body, end);
  });
}

const field = (blocks: HeaderField[][], name: string): string | undefined =>
  blocks.flat().find(([n]) => n === name)?.[1];

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
  );
}

void describe('HPACK header blocks', () => {
  void it('decodes what hpack.js encodes: Huffman, indexed, and the dynamic table across blocks', () => {
    const compressor = hpack.compressor.create({ table: { maxSize: 4096 } });
    const decoder = new HeaderBlockDecoder();
    const headers = [
      { name: ':status', value: '200' },
      { name: 'content-type', value: 'application/grpc' },
      { name: 'grpc-message', value: 'a%20long%20message%20%E2%9C%93 with ~ and |', huffman: true },
      { name: 'x-custom', value: 'v'.repeat(300), huffman: true },
      { name: 'x-secret', value: 'never indexed', neverIndex: true },
      { name: 'x-plain', value: 'not Huffman-coded', huffman: false },
    ];
    for (let round = 0; round < 3; round += 1) {
      // Later rounds find the fields in the dynamic table: one byte each.
      compressor.write(headers);
      const block = compressor.read();
      assert.ok(block !== null);
      assert.deepEqual(
        decoder.decode(block),
        headers.map((h) => [h.name, h.value]),
        `round ${round}`,
      );
    }
  });

  void it('encodes literals that hpack.js reads back, lengths past the 7-bit prefix included', () => {
    const fields: HeaderField[] = [
      [':path', '/inference.GRPCInferenceService/ModelInfer'],
      ['x-long', 'y'.repeat(1000)],
      ['empty', ''],
    ];
    assert.deepEqual(new HeaderBlockDecoder().decode(encodeHeaderBlock(fields)), fields);
  });

  void it('throws on a block that is not HPACK (an index past both tables)', () => {
    assert.throws(() => new HeaderBlockDecoder().decode(Buffer.from([0xff, 0x7f])));
  });
});

void describe('HTTP/2 frame reader', () => {
  void it('reads frames however the socket cut them, slices when whole, and refuses oversize', () => {
    const wire = Buffer.concat([
      frame(FrameType.SETTINGS, 0, 0, Buffer.alloc(0)),
      frame(FrameType.DATA, Flag.END_STREAM, 5, Buffer.from('payload')),
      frame(FrameType.PING, 0, 0, Buffer.alloc(8, 9)),
    ]);
    const read = (chunks: Buffer[]): string[] => {
      const got: string[] = [];
      const reader = new FrameReader(16_384);
      for (const c of chunks) {
        const bad = reader.push(c, (type, flags, id, payload) =>
          got.push(`${type}/${flags}/${id}/${payload.toString('hex')}`),
        );
        assert.equal(bad, null);
      }
      return got;
    };
    const whole = read([wire]);
    assert.equal(whole.length, 3);
    assert.deepEqual(read([...wire].map((b) => Buffer.from([b]))), whole);
    for (let cut = 1; cut < wire.length; cut += 1) {
      assert.deepEqual(read([wire.subarray(0, cut), wire.subarray(cut)]), whole, `cut at ${cut}`);
    }
    const big = Buffer.alloc(9);
    big.writeUIntBE(16_385, 0, 3);
    assert.match(new FrameReader(16_384).push(big, () => undefined) ?? '', /16385-byte frame/);
  });
});

void describe('HTTP/2 client against node:http2', () => {
  let server: http2.Http2Server;
  let port = 0;
  const sessions = new Set<http2.ServerHttp2Session>();
  let onStream: (s: http2.ServerHttp2Stream, h: http2.IncomingHttpHeaders) => void = () => {};
  before(async () => {
    // Default settings: a 64 KiB stream window, so a large request must wait for WINDOW_UPDATEs.
    server = http2.createServer({ settings: { maxConcurrentStreams: 3 } });
    server.on('session', (s) => {
      sessions.add(s);
      s.on('close', () => sessions.delete(s));
    });
    server.on('stream', (s, h) => {
      // Resets the tests provoke surface as stream errors on this side too.
      s.on('error', () => undefined);
      onStream(s, h);
    });
    port = await listen(server);
  });
  after(async () => {
    for (const s of sessions) s.destroy();
    await new Promise((r) => server.close(r));
  });

  /** Echoes the request body back behind headers, then trailers with grpc-status 0. */
  const echo = (s: http2.ServerHttp2Stream): void => {
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('end', () => {
      s.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0', 'grpc-message': 'fine' }));
      s.end(Buffer.concat(chunks));
    });
  };

  void it('sends headers and body as the server reads them, and reads headers, data, trailers', async () => {
    let seen: http2.IncomingHttpHeaders = {};
    onStream = (s, h) => {
      seen = h;
      echo(s);
    };
    const client = await H2Client.connect({ host: '127.0.0.1', port }, 5000);
    const body = framedMessage(Buffer.from('hello'));
    // Several rounds: the server's headers come from its dynamic table after the first.
    for (let i = 0; i < 3; i += 1) {
      const r = await exchange(client, body);
      assert.equal(r.aborted, null);
      assert.deepEqual(r.body, body);
      assert.equal(r.blocks.length, 2);
      assert.equal(field(r.blocks, ':status'), '200');
      assert.equal(field(r.blocks, 'grpc-status'), '0');
      assert.equal(field(r.blocks, 'grpc-message'), 'fine');
    }
    assert.equal(seen[':method'], 'POST');
    assert.equal(seen[':path'], '/echo');
    assert.equal(seen['content-type'], 'application/grpc');
    assert.equal(seen.te, 'trailers');
    client.close('done');
  });

  void it('moves 4 MiB each way, and 20 MiB down one stream (past its 16 MiB window)', async () => {
    onStream = echo;
    const client = await H2Client.connect({ host: '127.0.0.1', port }, 5000);
    const big = Buffer.alloc(4 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big[i] = i & 0xff;
    const r = await exchange(client, big);
    assert.equal(r.aborted, null);
    assert.ok(r.body.equals(big), 'the echo differs from the request');

    // Beyond this client's 16 MiB stream window: only its WINDOW_UPDATEs let the server go on.
    onStream = (s) => {
      s.respond({ ':status': 200 });
      for (let i = 0; i < 5; i += 1) s.write(big);
      s.end();
    };
    const long = await exchange(client, Buffer.alloc(0));
    assert.equal(long.aborted, null);
    assert.equal(long.body.length, 5 * big.length);
    client.close('done');
  });

  void it('honours MAX_CONCURRENT_STREAMS: streams beyond it wait, then all are answered', async () => {
    const held: http2.ServerHttp2Stream[] = [];
    let most = 0;
    let arrived = 0;
    onStream = (s) => {
      held.push(s);
      arrived += 1;
      most = Math.max(most, held.length);
      // Answer once three are open (a fourth could only have come past the limit), and the last.
      if (held.length === 3 || arrived === 7) setImmediate(() => held.splice(0).forEach(echo));
    };
    const client = await H2Client.connect({ host: '127.0.0.1', port }, 5000);
    const results = await Promise.all(
      Array.from({ length: 7 }, (_, i) => exchange(client, Buffer.from([i]))),
    );
    assert.deepEqual(
      results.map((r) => [r.aborted, r.body[0]]),
      Array.from({ length: 7 }, (_, i) => [null, i]),
    );
    assert.equal(most, 3);
    client.close('done');
  });

  void it('reports a stream reset by the server mid-call, and the connection carries on', async () => {
    onStream = (s) => {
      s.respond({ ':status': 200 });
      // Destroyed, not closed: close() would end the stream gracefully before resetting it.
      s.write(Buffer.from('partial'), () => s.destroy(new Error('the handler failed')));
    };
    const client = await H2Client.connect({ host: '127.0.0.1', port }, 5000);
    const r = await exchange(client, Buffer.from('x'));
    assert.equal(r.aborted, 'the stream was reset by the server: INTERNAL_ERROR (2)');
    assert.equal(r.body.toString(), 'partial');
    onStream = echo;
    assert.equal((await exchange(client, Buffer.from('y'))).aborted, null);
    assert.ok(client.usable);
    client.close('done');
  });

  void it('on GOAWAY finishes the streams the server kept, refuses the rest, opens no more', async () => {
    const held: http2.ServerHttp2Stream[] = [];
    onStream = (s) => {
      held.push(s);
      if (held.length < 2) return;
      const [first] = held;
      s.session?.goaway(http2.constants.NGHTTP2_NO_ERROR, first?.id ?? 0);
      if (first !== undefined) echo(first);
      first?.resume();
    };
    const client = await H2Client.connect({ host: '127.0.0.1', port }, 5000);
    let goaway = false;
    let closed: string | null = null;
    client.attach({ onGoaway: () => (goaway = true), onClose: (r) => (closed = r) });
    const kept = exchange(client, Buffer.from('kept'));
    await new Promise((r) => setTimeout(r, 20));
    const refused = await exchange(client, Buffer.from('refused'));
    assert.equal(refused.aborted, 'the server sent GOAWAY (NO_ERROR (0))');
    assert.equal((await kept).body.toString(), 'kept');
    assert.ok(goaway);
    assert.equal(client.usable, false);
    assert.equal((await exchange(client, Buffer.from('late'))).aborted, 'the server sent GOAWAY');
    client.close('done');
    assert.equal(closed, 'done');
  });

  void it("answers the server's PING", async () => {
    const pinged = new Promise<boolean>((resolve) => {
      server.once('session', (s) =>
        s.once('remoteSettings', () => s.ping((e) => resolve(e === null))),
      );
    });
    const client = await H2Client.connect({ host: '127.0.0.1', port }, 5000);
    assert.equal(await pinged, true);
    client.close('done');
  });

  void it('ends a gRPC call with the status the server gave (trailers-only, percent-encoded)', async () => {
    onStream = (s) =>
      s.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': '5',
          'grpc-message': 'no model %22mlp%22',
        },
        { endStream: true },
      );
    const outcomes: RequestOutcome[] = [];
    const conn = await GrpcUnaryConnection.open(
      { host: '127.0.0.1', port },
      (_, o) => outcomes.push(o),
      () => undefined,
      5000,
    );
    conn.send(framedMessage(Buffer.from('request')), performance.now());
    while (outcomes.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.equal(outcomes[0]?.error, 'NOT_FOUND: no model "mlp"');
    assert.equal(conn.inFlight, 0);
    conn.close();
  });
});

void describe('HTTP/2 client against a hand-written frame server', () => {
  type OnFrame = (
    socket: net.Socket,
    type: number,
    flags: number,
    id: number,
    payload: Buffer,
  ) => void;

  /** A server that reads the preface, sends `settings`, then calls `onFrame` per client frame. */
  async function scripted(onFrame: OnFrame, settings = Buffer.alloc(0)) {
    const server = net.createServer((socket) => {
      const reader = new FrameReader(1 << 24);
      let preface = false;
      socket.on('data', (chunk: Buffer) => {
        let data = chunk;
        if (!preface) {
          assert.ok(chunk.subarray(0, PREFACE.length).equals(PREFACE));
          data = chunk.subarray(PREFACE.length);
          preface = true;
          socket.write(frame(FrameType.SETTINGS, 0, 0, settings));
        }
        reader.push(data, (type, flags, id, payload) => onFrame(socket, type, flags, id, payload));
      });
    });
    const port = await listen(server);
    const client = await H2Client.connect({ host: '127.0.0.1', port }, 5000);
    return { client, close: () => server.close() };
  }

  /** Answers each request's HEADERS with what `script` writes. */
  const onRequest =
    (script: (socket: net.Socket, id: number) => void): OnFrame =>
    (socket, type, _flags, id) => {
      if (type === FrameType.HEADERS) script(socket, id);
    };

  void it('sends no more DATA than the stream and connection windows allow, then the rest', async () => {
    let received = 0;
    let ended = false;
    let socket: net.Socket | null = null;
    let streamId = 0;
    const settings = Buffer.alloc(6);
    settings.writeUInt16BE(Setting.INITIAL_WINDOW_SIZE, 0);
    settings.writeUInt32BE(1000, 2);
    const s = await scripted((sock, type, flags, id, payload) => {
      socket = sock;
      if (type === FrameType.HEADERS) streamId = id;
      if (type !== FrameType.DATA) return;
      received += payload.length;
      if ((flags & Flag.END_STREAM) === 0) return;
      ended = true;
      const ok = encodeHeaderBlock([
        [':status', '200'],
        ['grpc-status', '0'],
      ]);
      sock.write(frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, ok));
    }, settings);
    const answer = exchange(s.client, Buffer.alloc(70_000, 1));
    const settle = async (n: number): Promise<void> => {
      assert.equal(
        await waitFor(
          () => received,
          (r) => r >= n,
        ),
        n,
      );
      await new Promise((r) => setTimeout(r, 30));
      assert.equal(received, n, 'sent past the window');
    };
    // The server's stream window (1000 bytes) holds the body back...
    await settle(1000);
    assert.ok(socket !== null);
    const sock = socket as net.Socket;
    sock.write(wordFrame(FrameType.WINDOW_UPDATE, streamId, 100_000));
    // ...then the connection's (the default 65,535)...
    await settle(65_535);
    assert.equal(ended, false);
    sock.write(wordFrame(FrameType.WINDOW_UPDATE, 0, 10_000));
    // ...until the rest may go, END_STREAM with it.
    const r = await answer;
    assert.equal(received, 70_000);
    assert.equal(r.aborted, null);
    assert.equal(field(r.blocks, 'grpc-status'), '0');
    s.client.close('done');
    s.close();
  });

  void it('joins a header block split over CONTINUATION frames, and strips padding', async () => {
    const block = encodeHeaderBlock([
      [':status', '200'],
      ['x-big', 'z'.repeat(40_000)],
    ]);
    const trailers = encodeHeaderBlock([['grpc-status', '0']]);
    const s = await scripted(
      onRequest((socket, id) => {
        // Frames within the client's 16 KiB MAX_FRAME_SIZE: a HEADERS and three CONTINUATIONs.
        const cuts = [0, 10, 16_010, 32_010, block.length];
        for (let i = 0; i + 1 < cuts.length; i += 1) {
          const type = i === 0 ? FrameType.HEADERS : FrameType.CONTINUATION;
          const flags = i + 2 === cuts.length ? Flag.END_HEADERS : 0;
          socket.write(frame(type, flags, id, block.subarray(cuts[i], cuts[i + 1])));
        }
        // DATA with 3 bytes of padding, then padded trailers (pad length 2).
        const data = Buffer.concat([Buffer.from([3]), Buffer.from('body'), Buffer.alloc(3)]);
        socket.write(frame(FrameType.DATA, Flag.PADDED, id, data));
        const padded = Buffer.concat([Buffer.from([2]), trailers, Buffer.alloc(2)]);
        socket.write(
          frame(FrameType.HEADERS, Flag.PADDED | Flag.END_HEADERS | Flag.END_STREAM, id, padded),
        );
      }),
    );
    const r = await exchange(s.client, Buffer.from('q'));
    assert.equal(r.aborted, null);
    assert.equal(field(r.blocks, 'x-big')?.length, 40_000);
    assert.equal(r.body.toString(), 'body');
    assert.equal(field(r.blocks, 'grpc-status'), '0');
    s.client.close('done');
    s.close();
  });

  void it('fails every stream when the server breaks the protocol (a frame inside a header block)', async () => {
    let closed: string | null = null;
    const s = await scripted(
      onRequest((socket, id) => {
        socket.write(frame(FrameType.HEADERS, 0, id, encodeHeaderBlock([[':status', '200']])));
        socket.write(frame(FrameType.DATA, 0, id, Buffer.from('x')));
      }),
    );
    s.client.attach({ onGoaway: () => undefined, onClose: (r) => (closed = r) });
    const r = await exchange(s.client, Buffer.from('q'));
    assert.equal(r.aborted, 'protocol error: a header block interrupted by another frame');
    assert.equal(closed, r.aborted);
    assert.equal(s.client.usable, false);
    s.close();
  });
});
