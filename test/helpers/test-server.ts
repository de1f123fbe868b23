// Starts a real infernode server in this process on ephemeral ports (real front end, real worker
// threads, real ONNX Runtime sessions), with its JSON log captured for assertions.

import { Writable } from 'node:stream';
import './ort-telemetry-off.js';
import { DEFAULT_OPTIONS, type ServerOptions } from '../../src/cli/server-options.js';
import { createLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';

export interface TestServer {
  readonly server: RunningServer;
  readonly base: string;
  readonly metricsBase: string;
  /** host:port of the gRPC front end (with --allow-grpc, the default). */
  readonly grpcTarget: string;
  readonly logs: string[];
  close(): Promise<void>;
}

/**
 * Front-end threads for every test server that does not set its own: 1 unless the environment says
 * otherwise (.ci/run runs the whole suite once more with INFERNODE_TEST_HTTP_THREADS=2, so every
 * integration suite also runs with requests arriving on several threads).
 */
export const TEST_HTTP_THREADS = Number(process.env['INFERNODE_TEST_HTTP_THREADS'] ?? '1');

export async function startTestServer(overrides: Partial<ServerOptions>): Promise<TestServer> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== ''),
      );
      done();
    },
  });
  const options: ServerOptions = Object.freeze({
    ...DEFAULT_OPTIONS,
    httpAddress: '127.0.0.1',
    metricsAddress: '127.0.0.1',
    httpPort: 0,
    metricsPort: 0,
    grpcAddress: '127.0.0.1',
    grpcPort: 0,
    exitOnError: false,
    httpThreadCount: TEST_HTTP_THREADS,
    ...overrides,
  });
  const server = await startServer(options, createLogger(1, sink));
  return {
    server,
    base: `http://127.0.0.1:${server.httpPort}`,
    metricsBase: `http://127.0.0.1:${server.metricsPort ?? 0}`,
    grpcTarget: `127.0.0.1:${server.grpcPort ?? 0}`,
    logs,
    close: async () => {
      await server.shutdown(10_000);
    },
  };
}

/** POSTs a JSON body and returns status and parsed JSON (or text when it is not JSON). */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, json, headers: res.headers };
}
