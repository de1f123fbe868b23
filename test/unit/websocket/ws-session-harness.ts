// One WebSocket session wired as the server wires it (streamingRoute over a real DataPlane, model
// registry, validation and direct scheduler), with two stand-ins: the socket, which records what
// the session sends and reports a buffered amount the test sets, and the scheduler tests'
// ManualTarget, which answers each run (OUT = 2 * IN) only when the test says so.

import { Packr } from 'msgpackr';
import { msgpackClientCodec, type ServerReply } from '../../../src/client/client-codecs.js';
import { tensor } from '../../../src/client/client-tensor.js';
import {
  RegistryDataPlane as DataPlane,
  type ModelControl,
} from '../../../src/dataplane/data-plane.js';
import type { RestrictedApis } from '../../../src/http/restricted-apis.js';
import { ModelRegistry } from '../../../src/repository/model-registry.js';
import { streamingRoute, type StreamingRoute } from '../../../src/websocket/ws-route.js';
import { MSGPACK_PROTOCOL, type WebSocketLimits } from '../../../src/websocket/ws-protocol.js';
import { WsSession } from '../../../src/websocket/ws-session.js';
import { fail, type InferenceServerError } from '../../../src/errors.js';
import type { ModelVersion } from '../../../src/repository/model-version.js';
import {
  configFromText,
  modelEntry,
  servedVersion,
  TWICE_CONFIG,
} from '../repository/model-version-fixture.js';
import { flush, ManualTarget } from '../scheduler/fixtures.js';

/** What the session sends through (the front ends' WebSocketConnection). */
type Connection = Parameters<StreamingRoute['open']>[0];

export class FakeSocket implements Connection {
  /** Every frame the session handed over, copied (the session may reuse its buffers). */
  readonly frames: Uint8Array[] = [];
  readonly closes: (readonly [number, string])[] = [];
  /** Bytes handed to send() that "the kernel" has not taken yet; tests set it to 0 to drain. */
  buffered = 0;
  /** Make send() refuse, as a library does past its hard limit. */
  refuse = false;

  send(bytes: Uint8Array): boolean {
    if (this.refuse) return false;
    this.frames.push(Uint8Array.from(bytes));
    this.buffered += bytes.byteLength;
    return true;
  }

  bufferedAmount(): number {
    return this.buffered;
  }

  close(code: number, reason: string): void {
    this.closes.push([code, reason]);
  }

  /** Every frame sent so far, decoded as a client would. */
  replies(): ServerReply[] {
    return this.frames.map((f) => msgpackClientCodec.decodeReply(f));
  }
}

export interface HarnessOptions {
  readonly limits?: Partial<WebSocketLimits>;
  /** Runs the model instance executes at once. */
  readonly capacity?: number;
  /** The subprotocol the socket was accepted with (msgpack by default). */
  readonly protocol?: string;
  /** --http-restricted-api, and the upgrade's headers it is checked against (default: none). */
  readonly restricted?: RestrictedApis;
  readonly headers?: ReadonlyMap<string, string>;
}

export interface Harness {
  readonly session: WsSession;
  readonly socket: FakeSocket;
  readonly target: ManualTarget;
  readonly route: StreamingRoute;
  readonly version: ModelVersion;
  readonly serverErrors: InferenceServerError[];
  /** Sends `inferFrame(id, model)` and lets the request reach the target. */
  infer(id: number, model?: string): Promise<void>;
  cancel(id: number): Promise<void>;
  /** Answers run `index` (dispatch order) and lets its response reach the socket. */
  complete(index: number): Promise<void>;
}

/** An infer frame for `model` with IN = [id, id + 1] (a string id: IN = [1, 2]). */
export function inferFrame(id: number | string, model = 'm'): Uint8Array {
  if (typeof id === 'number') {
    return msgpackClientCodec.encodeRequest(
      id,
      model,
      [tensor('IN', 'FP32', [1, 2], Float32Array.of(id, id + 1))],
      {},
    );
  }
  // The client codec takes integer ids only; a string id is built by hand, field for field.
  return new Packr({ useRecords: false }).pack({
    id,
    model,
    inputs: [
      {
        name: 'IN',
        datatype: 'FP32',
        shape: [1, 2],
        data: Buffer.from(Float32Array.of(1, 2).buffer),
      },
    ],
  });
}

/** The session never calls the repository API: a control that refuses it, as mode none does. */
const NO_MODEL_CONTROL: ModelControl = {
  index: () => Promise.resolve([]),
  load: () => Promise.reject(fail('MODEL_CONTROL_DISABLED', 'not in this harness')),
  unload: () => Promise.reject(fail('MODEL_CONTROL_DISABLED', 'not in this harness')),
};

export function harness(o: HarnessOptions = {}): Harness {
  const target = new ManualTarget(o.capacity ?? 16);
  const version = servedVersion(configFromText(TWICE_CONFIG, 'm'), 1, target);
  const registry = new ModelRegistry();
  registry.add(modelEntry('m', [version]));
  const plane = new DataPlane(registry, NO_MODEL_CONTROL, {
    version: 'test',
    strictReadiness: true,
    maxInputBytes: 1 << 20,
  });
  const serverErrors: InferenceServerError[] = [];
  const route = streamingRoute(plane, {
    ...(o.limits !== undefined ? { limits: o.limits } : {}),
    ...(o.restricted !== undefined ? { restricted: o.restricted } : {}),
    onServerError: (e) => serverErrors.push(e),
  });
  const socket = new FakeSocket();
  const session = route.open(socket, o.protocol ?? MSGPACK_PROTOCOL, o.headers ?? new Map());
  if (!(session instanceof WsSession)) throw new Error('streamingRoute opened something else');
  return {
    session,
    socket,
    target,
    route,
    version,
    serverErrors,
    async infer(id, model = 'm') {
      session.message(inferFrame(id, model), true, false);
      await flush();
    },
    async cancel(id) {
      session.message(msgpackClientCodec.encodeCancel(id), true, false);
      await flush();
    },
    async complete(index) {
      target.complete(index);
      await flush();
    },
  };
}

/** A reply as [id, 'OUT values' | error code]: enough to read a test's expectations at a glance. */
export function brief(reply: ServerReply): [string | number, number[] | string] {
  if ('error' in reply) return [reply.id, reply.error.code];
  if ('repository' in reply) return [reply.id, reply.repository.type];
  const out = reply.result.outputs[0];
  return [reply.id, out === undefined ? [] : [...(out.data as Float32Array)]];
}
