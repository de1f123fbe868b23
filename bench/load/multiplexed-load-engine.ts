// The load engine of one generator thread over connections that carry many requests at once
// (`-i ws`, `-i grpc`): a closed loop (concurrency) or an open loop (request rate) over payloads
// built once. The per-request timeout sweep and the draining stop are SweptLoadEngine's, shared
// with the HTTP engine; what a connection is stays with each protocol's engine.

import type { LoadShare } from './messages.js';
import { MultiplexedClosedLoop } from './multiplexed-closed-loop.js';
import type { MultiplexedConnection, OpenConnection } from './multiplexed-connection.js';
import { MultiplexedOpenLoop } from './multiplexed-open-loop.js';
import { PayloadCycle } from './payload-cycle.js';
import { SweptLoadEngine } from './swept-engine.js';
import type { WindowRecorder } from './window-recorder.js';

export interface MultiplexedEngineSettings<P, C extends MultiplexedConnection<P>> {
  /** One payload per input-data entry, cycled through. */
  readonly payloads: readonly P[];
  readonly open: OpenConnection<P, C>;
  /** Connections per thread; 0 = one per 64 outstanding requests (open loop: grow on demand). */
  readonly connections: number;
  readonly maxConnections: number;
  readonly requestTimeoutMs: number;
  /** What a connection is, for error messages ('WebSocket', 'gRPC channel'). */
  readonly noun: string;
}

type Loop<P, C extends MultiplexedConnection<P>> =
  MultiplexedClosedLoop<P, C> | MultiplexedOpenLoop<P, C>;

export class MultiplexedLoadEngine<P, C extends MultiplexedConnection<P>> extends SweptLoadEngine<
  Loop<P, C>,
  C
> {
  constructor(
    private readonly settings: MultiplexedEngineSettings<P, C>,
    private readonly threadIndex: number,
  ) {
    super(settings.requestTimeoutMs, expireAll);
  }

  async start(share: LoadShare, recorder: WindowRecorder): Promise<void> {
    const s = this.settings;
    const payloads = new PayloadCycle(s.payloads, this.threadIndex);
    switch (share.kind) {
      case 'concurrency': {
        const loop = new MultiplexedClosedLoop(s.open, payloads, recorder);
        this.runner = loop;
        await loop.start(share.concurrency, s.connections);
        break;
      }
      case 'request-rate': {
        const loop = new MultiplexedOpenLoop(s.open, payloads, recorder, {
          connections: s.connections,
          maxConnections: s.maxConnections,
          noun: s.noun,
        });
        this.runner = loop;
        await loop.start(share);
        break;
      }
    }
    this.startSweeper();
  }

  /** Never: a due request goes out on a connection at once (connections carry many requests). */
  queued(): number {
    return 0;
  }
}

function expireAll<P>(connections: Iterable<MultiplexedConnection<P>>, timeoutMs: number): void {
  const now = performance.now();
  for (const c of [...connections]) c.expire(now, timeoutMs);
}
