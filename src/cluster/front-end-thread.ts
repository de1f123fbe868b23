// The body of one front-end thread: the same HTTP routes and WebSocket endpoint the main thread
// serves, on the same adapter and port, over a RemoteDataPlane. The thread does each request's
// per-request work — framing, decompression, JSON/binary/msgpack/FlatBuffers decoding, encoding
// and sending the answer — and the main thread validates, queues, batches and runs it.

import type { MessagePort } from 'node:worker_threads';
import { kserveRoutes } from '../http/kserve-routes.js';
import { sharedMemoryBudget } from '../memory/client-budget.js';
import { RestrictedApis } from '../http/restricted-apis.js';
import { selectFrontEnd } from '../http/select-front-end.js';
import { WsCounters } from '../websocket/ws-counters.js';
import { streamingRoute, type StreamingRoute } from '../websocket/ws-route.js';
import type { FrontEnd } from '../http/front-end.js';
import { LoopSampler } from '../metrics/thread-sampler.js';
import { RemoteDataPlane, threadClosing } from './remote-data-plane.js';
import type { ControlOp, FrontEndThreadConfig, ToMain, ToThread } from './thread-messages.js';
import { LogControl } from '../logging/log-control.js';
import { tenantField, tenantLogField } from '../tenant/tenant-field.js';

const PINO_LEVEL = Object.freeze({ info: 30, warn: 40, error: 50 } as const);

export async function runFrontEndThread(
  config: FrontEndThreadConfig,
  port: MessagePort,
): Promise<void> {
  const post = (message: ToMain, transfer?: ArrayBuffer[]): void =>
    port.postMessage(message, transfer);
  // The thread's copy of main's log settings (main sends each change): a record they turn off is
  // dropped here, never cloned to main. Main's logger writes what arrives, in its format.
  const logging = new LogControl(config.logSettings);
  const log = (
    level: 'info' | 'warn' | 'error',
    fields: Record<string, unknown>,
    message: string,
  ): void => {
    if (!logging.enabled(PINO_LEVEL[level])) return;
    post({ kind: 'log', level, fields: { ...fields, thread: config.index }, message });
  };
  const plane = new RemoteDataPlane(post);
  const restricted = new RestrictedApis(config.restrictedApis);
  // The process's one budget, counted in the main thread's shared counter.
  const clientBudget = sharedMemoryBudget(
    config.clientBudget.limitBytes,
    config.clientBudget.counter,
  );
  const websocket: StreamingRoute | undefined =
    config.websocket === undefined
      ? undefined
      : streamingRoute(plane, {
          restricted,
          limits: config.websocket.limits,
          counters: new WsCounters(config.websocket.counters),
          budget: clientBudget,
          onServerError: (err, tenant) =>
            log(
              'error',
              { code: err.code, path: '/v2/ws', ...tenantLogField(tenant) },
              err.message,
            ),
          ...(config.tenantHeader !== undefined && { tenantHeader: config.tenantHeader }),
        });
  const { frontEnd } = await selectFrontEnd({
    frontEnd: config.frontEnd,
    host: config.host,
    port: config.port,
    maxBodyBytes: config.maxBodyBytes,
    clientBudget,
    limits: config.limits,
    reusePort: true,
    ...(websocket !== undefined && { websocket }),
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= frontEnd.close().finally(() => plane.abandon(threadClosing()));
    return closing;
  };
  // An exception nothing caught: the thread's state is suspect, so it closes its sockets and
  // exits, and the main thread starts a new one. Closing first matters with uWS: a worker that
  // ends while uWS still holds sockets aborts the whole process (node's uv_loop_close check).
  process.on('uncaughtException', (e) => {
    log('error', { err: e instanceof Error ? e.message : String(e) }, 'front-end thread failed');
    void close().finally(() => setImmediate(() => process.exit(1)));
  });

  // As on the main thread (cli/main.ts): a rejection nobody handled is logged, never fatal.
  process.on('unhandledRejection', (reason) =>
    log(
      'error',
      { err: reason instanceof Error ? reason.message : String(reason) },
      'unhandled rejection',
    ),
  );

  port.on('message', (message: ToThread) => {
    if (message.kind === 'logSettings') {
      logging.replace(message.settings);
      return;
    }
    if (message.kind !== 'control') {
      plane.receive(message);
      return;
    }
    void control(frontEnd, websocket, message.op, close).then(
      () => post({ kind: 'done', seq: message.seq }),
      (e: unknown) => {
        log('error', { err: e instanceof Error ? e.message : String(e) }, `${message.op} failed`);
        post({ kind: 'done', seq: message.seq });
      },
    );
    if (message.op === 'close') {
      // Once closed and answered, nothing of the thread is left to run: it ends (only the thread).
      void close().then(() => setImmediate(() => process.exit(0)));
    }
  });

  if (config.readingsIntervalMs !== undefined) {
    // The thread's own event loop and heap, for infernode_thread_* on the main thread's /metrics.
    const sampler = new LoopSampler();
    setInterval(
      () => post({ kind: 'readings', reading: sampler.sample() }),
      config.readingsIntervalMs,
    ).unref();
  }

  const bound = await frontEnd.listen(
    restricted.guard(
      kserveRoutes(plane, {
        maxBodyBytes: config.maxBodyBytes,
        logging: plane,
        ...(config.tenantHeader !== undefined && { tenantHeader: config.tenantHeader }),
        onServerError: (err, call) =>
          log(
            'error',
            { code: err.code, path: call.path.slice(0, 200), ...tenantField(config, call) },
            err.message,
          ),
      }),
    ),
  );
  post({ kind: 'listening', port: bound });
}

function control(
  frontEnd: FrontEnd,
  websocket: StreamingRoute | undefined,
  op: ControlOp,
  close: () => Promise<void>,
): Promise<void> {
  switch (op) {
    case 'fail':
      setImmediate(() => {
        throw new Error('failure requested by the main thread');
      });
      return Promise.resolve();
    case 'beginDrain':
      frontEnd.beginDrain();
      return Promise.resolve();
    case 'whenIdle':
      return frontEnd.whenIdle();
    case 'stopAccepting':
      return frontEnd.stopAccepting();
    case 'websocketShutdown':
      return websocket?.shutdown() ?? Promise.resolve();
    case 'close':
      return close();
  }
}
